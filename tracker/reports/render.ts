// Report rows as the API writes them: JSON objects (the shapes in schemas.ts) or CSV lines with the
// same fields flattened, for spreadsheets.
import type { Stop, Trip } from './detect.js';
import type { Summary } from './summary.js';

export type ReportKind = 'trips' | 'stops' | 'summary';
export type ReportRow = Trip | Stop | Summary;

const r1 = (x: number): number => Math.round(x * 10) / 10;
const r3 = (x: number): number => Math.round(x * 1000) / 1000;
const opt = (x: number | null, round: (x: number) => number): number | null => (x === null ? null : round(x));
const place = (p: { lat: number; lng: number }) => ({ lat: p.lat, lng: p.lng });

function json(kind: ReportKind, row: ReportRow): Record<string, unknown> {
  if (kind === 'trips') {
    const t = row as Trip;
    return {
      deviceId: t.deviceId, startTime: t.startTime.toISOString(), endTime: t.endTime.toISOString(), start: place(t.start), end: place(t.end),
      distance: r1(t.distance), duration: r3(t.duration), averageSpeed: r1(t.averageSpeed), maxSpeed: r1(t.maxSpeed),
      engineHours: opt(t.engineHours, r3), fuelUsed: opt(t.fuelUsed, r3), driverUniqueId: t.driverUniqueId,
    };
  }
  if (kind === 'stops') {
    const s = row as Stop;
    return { deviceId: s.deviceId, startTime: s.startTime.toISOString(), endTime: s.endTime.toISOString(), position: place(s.position), duration: r3(s.duration), engineOnTime: opt(s.engineOnTime, r3) };
  }
  const s = row as Summary;
  const at = (p: Summary['firstPosition']) => (p ? { lat: p.lat, lng: p.lng, time: p.time.toISOString() } : null);
  return {
    deviceId: s.deviceId, day: s.day, distance: r1(s.distance), engineHours: opt(s.engineHours, r3), maxSpeed: opt(s.maxSpeed, r1), averageSpeed: opt(s.averageSpeed, r1),
    trips: s.trips, idleTime: opt(s.idleTime, r3), fuelUsed: opt(s.fuelUsed, r3), firstPosition: at(s.firstPosition), lastPosition: at(s.lastPosition),
  };
}

/** The JSON rows of one batch, each preceded by a comma unless it is the answer's first. */
export function jsonRows(kind: ReportKind, rows: ReportRow[], first: boolean): string {
  return rows.map((row, i) => (first && i === 0 ? '' : ',') + JSON.stringify(json(kind, row))).join('');
}

/** CSV columns: nested places become <name>Lat / <name>Lng (and <name>Time). */
function flat(o: Record<string, unknown>, prefix = ''): [string, unknown][] {
  return Object.entries(o).flatMap(([k, v]): [string, unknown][] => {
    const name = prefix ? prefix + k[0]!.toUpperCase() + k.slice(1) : k;
    return v !== null && typeof v === 'object' ? flat(v as Record<string, unknown>, name) : [[name, v]];
  });
}

export const CSV_COLUMNS: Record<ReportKind, string[]> = {
  trips: ['deviceId', 'startTime', 'endTime', 'startLat', 'startLng', 'endLat', 'endLng', 'distance', 'duration', 'averageSpeed', 'maxSpeed', 'engineHours', 'fuelUsed', 'driverUniqueId'],
  stops: ['deviceId', 'startTime', 'endTime', 'positionLat', 'positionLng', 'duration', 'engineOnTime'],
  summary: ['deviceId', 'day', 'distance', 'engineHours', 'maxSpeed', 'averageSpeed', 'trips', 'idleTime', 'fuelUsed', 'firstPositionLat', 'firstPositionLng', 'firstPositionTime', 'lastPositionLat', 'lastPositionLng', 'lastPositionTime'],
};

/**
 * A CSV field: quoted when it holds a comma, quote or line break; text a spreadsheet would run as a
 * formula (= + - @ first) is prefixed with an apostrophe.
 */
function field(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v !== 'string') return String(v);
  const text = /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvRows(kind: ReportKind, rows: ReportRow[]): string {
  return rows
    .map((row) => {
      const values = new Map(flat(json(kind, row)));
      return CSV_COLUMNS[kind].map((c) => field(values.get(c))).join(',') + '\r\n';
    })
    .join('');
}
