// fuel_alert: the level below the device's threshold, once per episode. fuel_alert_critical: a
// drop of more than 8 litres within 60 seconds (the spec), once per episode.
//
// Fuel senders are noisy (fuel sloshes, a sample can read far off), so neither rule trusts one
// reading. Levels are trailing medians of three readings, so a single outlier never moves them:
// the low-fuel rule compares that level with the threshold; the drop rule compares the current
// level with the highest level seen within the last 60 seconds. Litres come from the `fuel`
// attribute, or from `fuelLevel` (percent) and the tank's capacity.
//
// The rule's stored state is its two flags; the readings of the window are kept in memory beside
// the device's running state (they are in the positions table already), and read back from there
// when the tracker holds none (fuel-windows.ts).
import type { Observation, Outcome } from './types.js';

export const CRITICAL_DROP_LITRES = 8;
export const CRITICAL_WINDOW_MS = 60_000;
/** The level must rise this far above a threshold before a new low-fuel episode can start. */
export const FUEL_REARM_MARGIN = 2;
const MEDIAN_OF = 3;
/** Readings kept at most (a device reporting every second fills the window with 60). */
export const MAX_READINGS = 64;

export interface FuelSettings {
  tankLitres: number | null;
  lowLitres: number | null;
  lowPercent: number | null;
}

export interface Reading {
  t: number;
  /** Litres, when known. */
  l?: number;
  /** Percent of the tank, when known. */
  p?: number;
}

export interface FuelState {
  low?: boolean;
  dropping?: boolean;
}

/** What the rule gives back: its flags (the same object when they did not move) and the window after the reading. */
export interface FuelOutcome extends Outcome<FuelState> {
  readings: readonly Reading[];
}

/** A report's fuel reading at `time`, or null when it carries none. */
export function readingOf(time: number, fuel: number | undefined, percent: number | undefined, tank: number | null): Reading | null {
  const r: Reading = { t: time };
  if (fuel !== undefined && fuel >= 0) r.l = fuel;
  else if (percent !== undefined && tank) r.l = (percent * tank) / 100;
  if (percent !== undefined && percent >= 0) r.p = percent;
  else if (r.l !== undefined && tank) r.p = (r.l / tank) * 100;
  return r.l === undefined && r.p === undefined ? null : r;
}

/** The middle one of three values. */
const middle = (a: number, b: number, c: number) => Math.max(Math.min(a, b), Math.min(Math.max(a, b), c));

/**
 * Trailing median of the last three readings that carry the unit, or null. Runs on every reading of
 * every unit that reports fuel, so it reads the values in place rather than gathering and sorting them.
 */
function level(readings: readonly Reading[], unit: 'l' | 'p'): number | null {
  let a = 0;
  let b = 0;
  let found = 0;
  for (let i = readings.length - 1; i >= 0; i--) {
    const v = readings[i]![unit];
    if (v === undefined) continue;
    if (found === 2) return middle(a, b, v);
    if (found === 0) a = v;
    else b = v;
    found++;
  }
  return found === 0 ? null : found === 1 ? a : (a + b) / 2;
}

/**
 * How far the litre level fell from its highest point within the window (needs three readings): the
 * level after each litre reading is the median of it and the two before, in one pass.
 */
function drop(readings: readonly Reading[]): number {
  let last = readings.length - 1;
  while (last >= 0 && readings[last]!.l === undefined) last--;
  if (last < 0) return 0;
  const now = readings[last]!.t;
  let a = 0;
  let b = 0;
  let seen = 0;
  let highest = -Infinity;
  let current = 0;
  for (let i = 0; i <= last; i++) {
    const r = readings[i]!;
    if (r.l === undefined) continue;
    if (++seen >= MEDIAN_OF) {
      current = middle(a, b, r.l);
      if (now - r.t <= CRITICAL_WINDOW_MS) highest = Math.max(highest, current);
    }
    a = b;
    b = r.l;
  }
  return seen < MEDIAN_OF ? 0 : highest - current;
}

function isLow(readings: readonly Reading[], s: FuelSettings, margin: number): boolean {
  const litres = level(readings, 'l');
  const percent = level(readings, 'p');
  return (s.lowLitres !== null && litres !== null && litres < s.lowLitres + margin) || (s.lowPercent !== null && percent !== null && percent < s.lowPercent + margin);
}

export function fuelRule(state: FuelState, window: readonly Reading[], obs: Observation, settings: FuelSettings): FuelOutcome {
  const r = readingOf(obs.time, obs.attributes.fuel, obs.attributes.fuelLevel, settings.tankLitres);
  if (!r) return { state, readings: window, drafts: [] };
  // Keep the window, and the two readings before it that the medians at its start need.
  const all = [...window, r];
  const inWindow = all.findIndex((x) => obs.time - x.t <= CRITICAL_WINDOW_MS);
  const readings = all.slice(Math.max(0, inWindow - (MEDIAN_OF - 1), all.length - MAX_READINGS));
  const drafts: Outcome<FuelState>['drafts'] = [];

  // Still low until the level is clearly back above the threshold.
  const low = state.low ? isLow(readings, settings, FUEL_REARM_MARGIN) : isLow(readings, settings, 0);
  if (low && !state.low) drafts.push({ type: 'fuel_alert', data: fuelData(readings, settings) });

  const fell = drop(readings);
  const dropping = fell > CRITICAL_DROP_LITRES;
  if (dropping && !state.dropping) drafts.push({ type: 'fuel_alert_critical', data: { dropLitres: round1(fell), windowSeconds: CRITICAL_WINDOW_MS / 1000, ...fuelData(readings, settings) } });

  if (low === Boolean(state.low) && dropping === Boolean(state.dropping)) return { state, readings, drafts };
  const next: FuelState = {};
  if (low) next.low = true;
  if (dropping) next.dropping = true;
  return { state: next, readings, drafts };
}

function fuelData(readings: readonly Reading[], s: FuelSettings): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  const litres = level(readings, 'l');
  const percent = level(readings, 'p');
  if (litres !== null) data.fuelLitres = round1(litres);
  if (percent !== null) data.fuelPercent = round1(percent);
  if (s.lowLitres !== null) data.lowLitres = s.lowLitres;
  if (s.lowPercent !== null) data.lowPercent = s.lowPercent;
  return data;
}

const round1 = (n: number) => Math.round(n * 10) / 10;
