// The human-readable form of a webhook payload that every chat format renders: a title, a sentence,
// a few labelled facts and a map link. Each chat format then escapes and fits it to its platform.
import type { Severity } from '../../events/types.js';
import { telemetryEntry, type Telemetry, type TelemetryKey } from '../../positions/telemetry.js';
import type { WebhookPayload } from '../payload.js';

export interface ChatMessage {
  title: string;
  severity: Severity;
  summary: string;
  facts: { label: string; value: string }[];
  mapUrl: string | null;
  /** ISO 8601 UTC, when the event happened. */
  timestamp: string;
  footer: string;
}

const LABELS: Record<string, [label: string, meaning: string]> = {
  sos: ['SOS', 'Emergency button pressed'],
  speeding: ['Speeding', 'Unit exceeded speed'],
  geofence_enter: ['Geofence entered', 'Unit entered a geofence'],
  geofence_exit: ['Geofence left', 'Unit left a geofence'],
  fuel_alert: ['Fuel alert', 'Fuel alert'],
  fuel_alert_critical: ['Fuel drop', 'Fuel drop of more than 8 L within 60 seconds'],
  device_online: ['Online', 'Unit came online'],
  device_offline: ['Offline', 'Unit went offline'],
  maintenance_due: ['Maintenance due', 'Maintenance is due'],
  custom_rule_triggered: ['Rule triggered', 'A user-defined rule fired'],
  test: ['Test message', 'Test message'],
};

/** Facts shown at most (Slack allows 10 fields in a section). */
export const MAX_FACTS = 10;
const MAX_DETAIL_CHARS = 200;

/** Cuts text to at most max UTF-16 units, ending with "…", never inside a surrogate pair. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = max - 1;
  const code = text.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut--;
  return `${text.slice(0, cut)}…`;
}

/** The telemetry a chat line shows when the report has it, in this order, with a reader's label. */
const SHOWN: [TelemetryKey | 'temp1', string][] = [
  ['ignition', 'Ignition'],
  ['alarm', 'Alarm'],
  ['power', 'Power'],
  ['battery', 'Battery'],
  ['batteryLevel', 'Battery'],
  ['fuel', 'Fuel'],
  ['fuelLevel', 'Fuel'],
  ['temp1', 'Temperature'],
];

/** A short line such as "Ignition on · Power 12.6 V · Battery 80 %", or null when none of those keys was reported. */
function telemetryLine(t: Telemetry): string | null {
  const parts: string[] = [];
  for (const [key, label] of SHOWN) {
    const value = t[key];
    if (value === undefined) continue;
    const unit = telemetryEntry(key)!.unit;
    parts.push(typeof value === 'boolean' ? `${label} ${value ? 'on' : 'off'}` : `${label} ${value}${unit ? ` ${unit}` : ''}`);
  }
  return parts.length > 0 ? parts.join(' · ') : null;
}

const when = (iso: string) => iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC');

function detail(value: unknown): string {
  return truncate(typeof value === 'string' ? value : JSON.stringify(value) ?? String(value), MAX_DETAIL_CHARS);
}

export function chatMessage(p: WebhookPayload): ChatMessage {
  const [label, meaning] = LABELS[p.type] ?? [p.type, p.type];
  const facts: ChatMessage['facts'] = [];
  if (p.device) {
    facts.push({ label: 'Unit', value: p.device.name });
    if (p.device.plate) facts.push({ label: 'Plate', value: p.device.plate });
    facts.push({ label: 'IMEI', value: p.device.imei });
  }
  // A last known position is older than the event: the event's own time is shown, and the position says what it is.
  const at = p.position && !p.position.lastKnown ? p.position.timestamp : p.createdAt;
  facts.push({ label: 'Time', value: when(at) });
  if (p.position) {
    const where = `${p.position.lat.toFixed(5)}, ${p.position.lng.toFixed(5)}`;
    facts.push({ label: 'Position', value: p.position.lastKnown ? `${where} (last known, ${when(p.position.timestamp)})` : where });
    facts.push({ label: 'Speed', value: `${Math.round(p.position.speed)} km/h` });
  }
  const telemetry = telemetryLine(p.attributes ?? {});
  if (telemetry) facts.push({ label: 'Telemetry', value: telemetry });
  for (const [key, value] of Object.entries(p.data)) {
    if (facts.length >= MAX_FACTS) break;
    if (p.type === 'test' && key === 'message') continue;
    facts.push({ label: key, value: detail(value) });
  }
  const summary = p.alert?.message ?? (p.type === 'test' ? String(p.data.message) : meaning);
  const { lat, lng } = p.position ?? {};
  return {
    title: p.device ? `${label}: ${p.device.name}` : label,
    severity: p.alert?.severity ?? 'info',
    summary,
    facts,
    mapUrl: lat !== undefined && lng !== undefined ? `https://www.openstreetmap.org/?mlat=${lat}&mlon=${lng}#map=16/${lat}/${lng}` : null,
    timestamp: at,
    footer: p.type === 'test' ? 'Fleet tracker · test' : `Fleet tracker · event ${p.id} · ${p.type}`,
  };
}
