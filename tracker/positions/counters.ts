// Odometer and engine hours computed on the server for devices that do not report their own: the
// odometer sums the distances between consecutive valid fixes (filtered and invalid ones left out),
// engine hours sum the time between consecutive reports while the ignition was on, each gap counted
// at most up to ENGINE_HOURS_MAX_GAP (a unit that went silent with the ignition on did not
// necessarily keep the engine running). A counter the device reports is used as it is, and the
// running sum goes on from it.
import type { DecodedPosition } from '../protocols/types.js';
import { metresBetween, type Fix } from './distance.js';

/** A device's running state, stored in its devices row with the positions it derives from. */
export interface Counters {
  /** Device time of the last report counted; older reports (late records) are not counted. */
  time: Date | null;
  /** Metres; null before the first valid fix. */
  odometer: number | null;
  /** Seconds; null until the device first reports its ignition. */
  engineHours: number | null;
  /** The ignition as last reported. */
  ignition: boolean | null;
}

/** Attributes the server computed itself, listed in a position's `computed` attribute. */
export type ComputedKey = 'odometer' | 'engineHours';

/**
 * Counts report `p` (newer than `c.time`, not filtered) on top of `c`. `previous`: the device's
 * previous valid fix. Returns the new state and the counters `p` is to carry that it did not report.
 */
export function advance(c: Counters, p: DecodedPosition, previous: Fix | null, maxGapMs: number): { counters: Counters; computed: Partial<Record<ComputedKey, number>> } {
  const computed: Partial<Record<ComputedKey, number>> = {};
  const reportedOdometer = finite(p.attributes.odometer);
  let odometer = c.odometer;
  if (reportedOdometer !== null) odometer = reportedOdometer;
  else if (p.valid) odometer = (odometer ?? 0) + (previous && previous.time.getTime() < p.deviceTime.getTime() ? metresBetween(previous, p) : 0);
  if (reportedOdometer === null && odometer !== null) computed.odometer = odometer;

  const ignition = typeof p.attributes.ignition === 'boolean' ? p.attributes.ignition : c.ignition;
  const reportedHours = finite(p.attributes.engineHours);
  let engineHours = c.engineHours;
  if (reportedHours !== null) engineHours = reportedHours;
  else if (ignition !== null) {
    const gap = c.ignition === true && c.time ? Math.min(p.deviceTime.getTime() - c.time.getTime(), maxGapMs) : 0;
    engineHours = (engineHours ?? 0) + gap / 1000;
  }
  if (reportedHours === null && engineHours !== null) computed.engineHours = engineHours;

  return { counters: { time: p.deviceTime, odometer, engineHours, ignition }, computed };
}

function finite(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}
