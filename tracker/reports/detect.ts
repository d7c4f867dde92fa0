// Trips and stops of one device from its pieces (pieces.ts), as docs/reports.md defines them:
// runs of one motion state; a short stop between two movements joins them into one trip; a
// movement both shorter than the minimum distance and the minimum duration is part of a stop.
// A trip runs from the last record the unit stood at to the first it stands at again, unless a
// silence longer than maxGapS lies between (then from or to its own first or last moving record).
import type { Piece, Point } from './pieces.js';
import type { TripSettings } from './settings.js';

export interface Trip {
  deviceId: string;
  startTime: Date;
  endTime: Date;
  start: Point;
  end: Point;
  /** Metres, from the odometer. */
  distance: number;
  /** Seconds. */
  duration: number;
  averageSpeed: number;
  maxSpeed: number;
  /** Seconds the engine ran; null when the unit reports neither engine hours nor ignition. */
  engineHours: number | null;
  /** Litres; null when the unit reports no fuel. */
  fuelUsed: number | null;
  driverUniqueId: string | null;
}

export interface Stop {
  deviceId: string;
  startTime: Date;
  endTime: Date;
  position: Point;
  duration: number;
  /** Seconds the engine ran while the unit stood (idling); null when not known. */
  engineOnTime: number | null;
}

type Counter = 'odometer' | 'engineHours' | 'fuelUsed' | 'fuel';

/** Consecutive pieces of one motion state. */
class Run {
  constructor(readonly pieces: Piece[]) {}
  get moving(): boolean {
    return this.pieces[0]!.moving;
  }
  get start(): Date {
    return this.pieces[0]!.start;
  }
  get end(): Date {
    return this.pieces.at(-1)!.end;
  }
  first(key: Counter): number | null {
    for (const p of this.pieces) if (p[key][0] !== null) return p[key][0];
    return null;
  }
  last(key: Counter): number | null {
    for (let i = this.pieces.length - 1; i >= 0; i--) if (this.pieces[i]![key][1] !== null) return this.pieces[i]![key][1];
    return null;
  }
}

/** A run boundary record: where a trip or stop begins or ends, its counters those of its run's first or last record. */
interface Mark {
  time: Date;
  place: Point;
  run: Run;
  end: boolean;
}

const counter = (m: Mark, key: Counter): number | null => (m.end ? m.run.last(key) : m.run.first(key));

export interface Detected {
  trips: Trip[];
  stops: Stop[];
}

/** Pieces of one device, in time order. */
export function detect(pieces: Piece[], s: TripSettings): Detected {
  if (pieces.length === 0) return { trips: [], stops: [] };
  const runs: Run[] = [];
  for (const p of pieces) {
    const run = runs.at(-1);
    if (run && run.moving === p.moving) run.pieces.push(p);
    else runs.push(new Run([p]));
  }
  const gapBefore = (i: number): boolean => {
    const before = runs[i]!.pieces[0]!.before;
    return before === null || runs[i]!.start.getTime() - before.time.getTime() > s.maxGapS * 1000;
  };
  const lastPlace = (i: number): Point => runs[i + 1]?.pieces[0]!.before ?? runs[i]!.pieces.at(-1)!.last!;
  const firstMark = (i: number): Mark => ({ time: runs[i]!.start, place: runs[i]!.pieces[0]!.first, run: runs[i]!, end: false });
  const lastMark = (i: number): Mark => ({ time: runs[i]!.end, place: lastPlace(i), run: runs[i]!, end: true });

  // A trip starts where the unit last stood (the record before its first moving one) and ends where it
  // first stands again, unless a silence longer than maxGapS separates them.
  const tripStart = (i: number): Mark => (i > 0 && !gapBefore(i) ? lastMark(i - 1) : firstMark(i));
  const tripEnd = (j: number): Mark => (j + 1 < runs.length && !gapBefore(j + 1) ? firstMark(j + 1) : lastMark(j));
  const distance = (a: Mark, b: Mark): number => Math.max(0, diff(counter(b, 'odometer'), counter(a, 'odometer')) ?? 0);

  const moving = runs.map((r) => r.moving);
  // A short stop between two movements does not split the trip.
  for (let i = 1; i < runs.length - 1; i++) {
    if (!moving[i] && moving[i - 1] && moving[i + 1] && runs[i]!.end.getTime() - runs[i]!.start.getTime() < s.minStopDurationS * 1000) moving[i] = true;
  }
  // A movement too short and too small to be a trip belongs to the stop around it.
  for (const [i, j] of groups(moving, true)) {
    const a = tripStart(i);
    const b = tripEnd(j);
    if (distance(a, b) < s.minTripDistanceM && b.time.getTime() - a.time.getTime() < s.minTripDurationS * 1000) for (let k = i; k <= j; k++) moving[k] = false;
  }

  const deviceId = pieces[0]!.deviceId;
  const trips = groups(moving, true).map(([i, j]): Trip => {
    const a = tripStart(i);
    const b = tripEnd(j);
    const duration = (b.time.getTime() - a.time.getTime()) / 1000;
    const metres = distance(a, b);
    let maxSpeed = 0;
    let driverUniqueId: string | null = null;
    for (let k = i; k <= j; k++) {
      for (const p of runs[k]!.pieces) {
        maxSpeed = Math.max(maxSpeed, p.maxSpeed);
        driverUniqueId = p.driverUniqueId ?? driverUniqueId;
      }
    }
    const used = diff(counter(b, 'fuelUsed'), counter(a, 'fuelUsed'));
    const level = diff(counter(a, 'fuel'), counter(b, 'fuel'));
    return {
      deviceId,
      startTime: a.time,
      endTime: b.time,
      start: a.place,
      end: b.place,
      distance: metres,
      duration,
      averageSpeed: duration > 0 ? (metres / duration) * 3.6 : 0,
      maxSpeed,
      engineHours: diff(counter(b, 'engineHours'), counter(a, 'engineHours')),
      fuelUsed: used ?? level,
      driverUniqueId,
    };
  });
  const stops = groups(moving, false).map(([i, j]): Stop => {
    const a = firstMark(i);
    const b = lastMark(j);
    const span = new Run(runs.slice(i, j + 1).flatMap((r) => r.pieces));
    const hours = diff(span.last('engineHours'), span.first('engineHours'));
    return { deviceId, startTime: a.time, endTime: b.time, position: a.place, duration: (b.time.getTime() - a.time.getTime()) / 1000, engineOnTime: hours };
  });
  return { trips, stops };
}

/** Index ranges [i, j] of consecutive entries equal to `value`. */
function groups(flags: boolean[], value: boolean): [number, number][] {
  const out: [number, number][] = [];
  flags.forEach((f, i) => {
    if (f !== value) return;
    const last = out.at(-1);
    if (last && last[1] === i - 1) last[1] = i;
    else out.push([i, i]);
  });
  return out;
}

function diff(b: number | null, a: number | null): number | null {
  return a === null || b === null ? null : b - a;
}
