// speeding: one event per episode. An episode starts once valid fixes have stayed above the limit
// for SPEEDING_ENTER_MS (one fast sample is not enough: GPS speed spikes) and ends at the first
// valid fix at or below the limit minus SPEEDING_HYSTERESIS_KMH, so hovering at the limit does
// not start a new episode every few seconds.
import type { Observation, Outcome } from './types.js';

export const DEFAULT_SPEED_LIMIT_KMH = 90;
export const SPEEDING_ENTER_MS = 5_000;
export const SPEEDING_HYSTERESIS_KMH = 5;
/** Samples further apart than this do not prove the speed stayed above the limit in between. */
export const SPEEDING_MAX_GAP_MS = 120_000;

export interface SpeedingState {
  /** First fix of the current run above the limit, ms. */
  since?: number;
  /** Last fix above the limit, ms. */
  last?: number;
  /** An event was raised for the current episode. */
  active?: boolean;
}

export function speedingRule(state: SpeedingState, obs: Observation, limitKmh: number): Outcome<SpeedingState> {
  const fix = obs.fix;
  if (!fix?.valid) return { state, drafts: [] };
  if (fix.speed > limitKmh) {
    if (state.active) return { state: { ...state, last: obs.time }, drafts: [] };
    const since = state.since !== undefined && state.last !== undefined && obs.time - state.last <= SPEEDING_MAX_GAP_MS ? state.since : obs.time;
    if (obs.time - since < SPEEDING_ENTER_MS) return { state: { since, last: obs.time }, drafts: [] };
    return {
      state: { since, last: obs.time, active: true },
      drafts: [{ type: 'speeding', data: { speed: round1(fix.speed), speedLimit: limitKmh, since: new Date(since).toISOString() } }],
    };
  }
  if (state.active && fix.speed > limitKmh - SPEEDING_HYSTERESIS_KMH) return { state, drafts: [] };
  return { state: state.since === undefined ? state : {}, drafts: [] };
}

const round1 = (n: number) => Math.round(n * 10) / 10;
