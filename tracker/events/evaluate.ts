// Every rule over one device's new reports, in device-time order, with the state carried from its
// previous reports. Pure: the engine loads the state and settings and stores what comes out.
//
// Order: a batch is sorted by device time first. A record older than the newest one the rules
// have judged (a device emptying its buffer after a gap in coverage) is stored and shown in
// history, but does not move the rules' state: judging it now would invent transitions (a
// geofence exit followed by an entry that never happened in that order). Only the SOS alarm is
// judged on every record, late ones too: a panic is reported whenever it arrives. Records more
// than FUTURE_TOLERANCE_MS ahead of the tracker's clock are not judged either, or a device with a
// wrong clock would make every later record look late.
import { customRule, type ActiveRule, type CustomRuleState } from './evaluators/custom.js';
import { fuelRule, type FuelSettings, type FuelState, type Reading } from './evaluators/fuel.js';
import { geofenceRule, type ActiveGeofence, type GeofenceState } from './evaluators/geofences.js';
import { maintenanceRule, type MaintenanceSettings, type MaintenanceState } from './evaluators/maintenance.js';
import { sosRule, type SosState } from './evaluators/sos.js';
import { speedingRule, type SpeedingState } from './evaluators/speeding.js';
import type { Draft, Observation } from './evaluators/types.js';

export const FUTURE_TOLERANCE_MS = 5 * 60_000;

export interface DeviceRuleState {
  /** Device time of the newest record judged, ms. */
  t?: number;
  sos?: SosState;
  speeding?: SpeedingState;
  geofences?: GeofenceState;
  fuel?: FuelState;
  maintenance?: MaintenanceState;
  custom?: CustomRuleState;
}

export interface DeviceInputs {
  speedLimitKmh: number;
  fuel: FuelSettings;
  maintenance: MaintenanceSettings;
  geofences: readonly ActiveGeofence[];
  /** The enabled rules that apply to this device. */
  rules: readonly ActiveRule[];
}

export interface Raised extends Draft {
  /** The record that raised it. */
  observation: Observation;
}

export interface Evaluation {
  state: DeviceRuleState;
  raised: Raised[];
  /** Whether anything but `t` changed: the state is written only then (see the engine). */
  changed: boolean;
  /** The fuel rule's window after these reports: kept in memory, not in the state. */
  fuelReadings: readonly Reading[];
}

const NONE = Object.freeze({});

/**
 * Whether two states are the same once stored as JSON: key order differs between what rules build
 * and what was stored, and a key holding undefined is not stored. Walks both and stops at the first
 * difference.
 */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    if (a.length !== other.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], other[i])) return false;
    return true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let defined = 0;
  for (const key of Object.keys(x)) {
    if (x[key] === undefined) continue;
    if (!sameJson(x[key], y[key])) return false;
    defined++;
  }
  for (const key of Object.keys(y)) if (y[key] !== undefined) defined--;
  return defined === 0;
}

const withoutTime = (s: DeviceRuleState): DeviceRuleState => ({ ...s, t: undefined });

/** One device's evaluation under way. */
interface Run {
  state: DeviceRuleState;
  raised: Raised[];
  touched: boolean;
  fuelReadings: readonly Reading[];
}

/** Takes a rule's outcome into the run. Rules give their state back unchanged (the same object) when nothing moved: the usual case, which then costs no comparison. */
function apply<K extends Exclude<keyof DeviceRuleState, 't'>>(run: Run, key: K, observation: Observation, outcome: { state: NonNullable<DeviceRuleState[K]>; drafts: Draft[] }): void {
  if (outcome.state !== (run.state[key] ?? NONE)) {
    run.state[key] = outcome.state;
    run.touched = true;
  }
  for (const d of outcome.drafts) run.raised.push({ ...d, observation });
}

const byTime = (a: Observation, b: Observation) => a.time - b.time;

/** `fuelReadings`: the fuel rule's window before these reports (see evaluators/fuel.ts). */
export function evaluateDevice(initial: DeviceRuleState, observations: readonly Observation[], inputs: DeviceInputs, fuelReadings: readonly Reading[] = []): Evaluation {
  const run: Run = { state: { ...initial }, raised: [], touched: false, fuelReadings };
  const { state, raised } = run;
  // Stable sort: records of the same time keep their arrival order.
  for (const obs of observations.length > 1 ? [...observations].sort(byTime) : observations) {
    apply(run, 'sos', obs, sosRule(state.sos ?? NONE, obs));
    if (obs.fix === null) continue;
    if (state.t !== undefined && obs.time <= state.t) continue;
    if (obs.time > obs.receivedAt + FUTURE_TOLERANCE_MS) continue;
    apply(run, 'speeding', obs, speedingRule(state.speeding ?? NONE, obs, inputs.speedLimitKmh));
    apply(run, 'geofences', obs, geofenceRule(state.geofences ?? NONE, obs, inputs.geofences));
    const fuel = fuelRule(state.fuel ?? NONE, run.fuelReadings, obs, inputs.fuel);
    run.fuelReadings = fuel.readings;
    apply(run, 'fuel', obs, fuel);
    apply(run, 'maintenance', obs, maintenanceRule(state.maintenance ?? NONE, obs, inputs.maintenance));
    apply(run, 'custom', obs, customRule(state.custom ?? NONE, obs, inputs.rules));
    state.t = obs.time;
  }
  if (!run.touched) return { state, raised, changed: false, fuelReadings: run.fuelReadings };
  const compact = Object.fromEntries(Object.entries(state).filter(([, v]) => v !== undefined && !(typeof v === 'object' && Object.keys(v as object).length === 0))) as DeviceRuleState;
  return { state: compact, raised, changed: !sameJson(withoutTime(compact), withoutTime(initial)), fuelReadings: run.fuelReadings };
}
