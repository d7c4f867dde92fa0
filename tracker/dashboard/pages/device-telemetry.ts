// A device page's telemetry panel: each kept value with its unit and how long ago it was reported
// ("12.4 V · 3 min ago"), and the last alarms. Counters are shown in the units people read them in
// (km, hours); the API keeps the vocabulary's metres and seconds.
import type { LatestKey, LatestTelemetry, Reported } from '../../positions/latest-telemetry.js';
import { html, type Html } from '../html.js';

type Shown = Exclude<LatestKey, 'alarm'>;

/**
 * How each kept value is shown, in order: a yes/no pair for a boolean, else the number divided by
 * `scale`, rounded to `digits` and followed by `unit`. Declarative so that the fleet map's script
 * formats values the same way from the same table (the page hands it over as data). `brief`
 * marks the values a map popup shows.
 */
export interface TelemetryRow {
  key: Shown;
  label: string;
  brief?: true;
  yes?: string;
  no?: string;
  unit?: string;
  digits?: number;
  scale?: number;
}

export const TELEMETRY_ROWS: readonly TelemetryRow[] = [
  { key: 'ignition', label: 'Ignition', brief: true, yes: 'On', no: 'Off' },
  { key: 'motion', label: 'Motion', yes: 'Moving', no: 'Stopped' },
  { key: 'power', label: 'External power', brief: true, unit: 'V', digits: 2 },
  { key: 'battery', label: 'Battery', unit: 'V', digits: 2 },
  { key: 'batteryLevel', label: 'Battery level', brief: true, unit: '%', digits: 0 },
  { key: 'fuel', label: 'Fuel', brief: true, unit: 'L', digits: 1 },
  { key: 'fuelLevel', label: 'Fuel level', brief: true, unit: '%', digits: 0 },
  { key: 'odometer', label: 'Odometer', brief: true, unit: 'km', digits: 1, scale: 1000 },
  { key: 'engineHours', label: 'Engine hours', unit: 'h', digits: 1, scale: 3600 },
];

function format(row: TelemetryRow, v: unknown): string {
  if (row.yes !== undefined) return v ? row.yes : row.no!;
  return `${Number(((v as number) / (row.scale ?? 1)).toFixed(row.digits)).toLocaleString('en-GB')} ${row.unit}`;
}

/** "just now", "12 min ago", "5 h ago", "3 days ago"; a time ahead of the clock counts as now. */
function ago(time: string, now: number): string {
  const s = Math.max(0, (now - Date.parse(time)) / 1000);
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 48 * 3600) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} days ago`;
}

function age(r: Reported<unknown>, now: number): Html {
  return html`<time datetime="${r.time}" title="${r.time.slice(0, 10)} ${r.time.slice(11, 19)} UTC">${ago(r.time, now)}</time>`;
}

function alarmsTable(alarms: LatestTelemetry['alarms'], now: number): Html {
  if (alarms.length === 0) return html`<p class="muted">No alarms reported.</p>`;
  return html`<table class="table">
    <caption class="visually-hidden">Last alarms, newest first</caption>
    <thead><tr><th scope="col">Alarm</th><th scope="col">Reported</th></tr></thead>
    <tbody>${alarms.map((a) => html`<tr><td data-label="Alarm">${a.value.split(',').join(', ')}</td><td data-label="Reported">${age(a, now)}</td></tr>`)}</tbody>
  </table>`;
}

export function telemetryPanel(latest: LatestTelemetry, now = Date.now()): Html {
  const rows = TELEMETRY_ROWS.filter((r) => latest.telemetry[r.key] !== undefined);
  return html`<section aria-labelledby="telemetry" class="panel">
  <h2 id="telemetry">Telemetry</h2>
  ${rows.length === 0
    ? html`<p class="muted">No telemetry reported yet.</p>`
    : html`<dl class="facts">${rows.map((r) => {
        const reported = latest.telemetry[r.key]!;
        return html`<div><dt>${r.label}</dt><dd>${format(r, reported.value)} · ${age(reported, now)}</dd></div>`;
      })}</dl>`}
  <h3 id="last-alarms">Last alarms</h3>
  ${alarmsTable(latest.alarms, now)}
</section>`;
}
