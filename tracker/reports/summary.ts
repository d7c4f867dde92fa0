// Per device, over the range or per UTC day: distance and engine hours from the counters' steps
// between consecutive records (a day's first step is the one into it from the day before), speeds,
// trips and idling from detect.ts, the first and last position.
import type { Detected } from './detect.js';
import type { Piece, Point } from './pieces.js';

export interface Summary {
  deviceId: string;
  /** The UTC day (YYYY-MM-DD), or null for the whole range. */
  day: string | null;
  distance: number;
  engineHours: number | null;
  maxSpeed: number | null;
  averageSpeed: number | null;
  trips: number;
  idleTime: number | null;
  fuelUsed: number | null;
  firstPosition: (Point & { time: Date }) | null;
  lastPosition: (Point & { time: Date }) | null;
}

const blank = (deviceId: string, day: string | null): Summary => ({
  deviceId, day, distance: 0, engineHours: null, maxSpeed: null, averageSpeed: null, trips: 0, idleTime: null, fuelUsed: null, firstPosition: null, lastPosition: null,
});

const add = (a: number | null, b: number | null): number | null => (b === null ? a : (a ?? 0) + b);
const dayOf = (t: Date): string => t.toISOString().slice(0, 10);

/**
 * One device's summaries: one for the range (even with no positions in it), or one per day with
 * positions. `pieces` in time order.
 */
export function summarize(deviceId: string, pieces: Piece[], found: Detected, daily: boolean): Summary[] {
  const rows = new Map<string | null, Summary>();
  const row = (t: Date | string): Summary => {
    const day = daily ? (typeof t === 'string' ? t : dayOf(t)) : null;
    let s = rows.get(day);
    if (!s) rows.set(day, (s = blank(deviceId, day)));
    return s;
  };
  if (!daily) row(new Date(0));
  let odometer: number | null = null;
  let hours: number | null = null;
  pieces.forEach((p, i) => {
    const s = row(p.day);
    const [o0, o1] = p.odometer;
    if (o1 !== null) {
      s.distance += Math.max(0, o1 - (odometer ?? o0 ?? o1));
      odometer = o1;
    }
    const [h0, h1] = p.engineHours;
    if (h1 !== null) {
      s.engineHours = add(s.engineHours, Math.max(0, h1 - (hours ?? h0 ?? h1)));
      hours = h1;
    }
    s.maxSpeed = Math.max(s.maxSpeed ?? 0, p.maxSpeed);
    s.firstPosition ??= { ...p.first, time: p.start };
    const next = pieces[i + 1]?.before;
    const last = next ?? p.last;
    if (last) s.lastPosition = { ...last, time: p.end };
  });
  const driving = new Map<Summary, { metres: number; seconds: number }>();
  for (const t of found.trips) {
    const s = row(t.startTime);
    s.trips += 1;
    s.fuelUsed = add(s.fuelUsed, t.fuelUsed);
    const d = driving.get(s) ?? { metres: 0, seconds: 0 };
    driving.set(s, { metres: d.metres + t.distance, seconds: d.seconds + t.duration });
  }
  for (const [s, d] of driving) s.averageSpeed = d.seconds > 0 ? (d.metres / d.seconds) * 3.6 : 0;
  for (const stop of found.stops) {
    const s = row(stop.startTime);
    s.idleTime = add(s.idleTime, stop.engineOnTime);
  }
  return [...rows.values()].sort((a, b) => (a.day ?? '').localeCompare(b.day ?? ''));
}
