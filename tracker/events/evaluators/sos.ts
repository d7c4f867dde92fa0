// sos: the panic button. Devices repeat the alarm while it is held or until it is cleared (some
// keep the alarm bits set in every heartbeat, minutes apart), and buffered records may bring it
// late, so one event covers every SOS report received within SOS_QUIET_MS of the previous one
// (judged on receive time: device clocks can be far off).
import { alarmsOf } from '../../positions/telemetry.js';
import type { Observation, Outcome } from './types.js';

export const SOS_QUIET_MS = 5 * 60_000;

export interface SosState {
  /** Receive time of the last SOS report, ms. */
  seenAt?: number;
}

export function sosRule(state: SosState, obs: Observation): Outcome<SosState> {
  if (!alarmsOf(obs.attributes).includes('sos')) return { state, drafts: [] };
  const repeated = state.seenAt !== undefined && Math.abs(obs.receivedAt - state.seenAt) < SOS_QUIET_MS;
  const seenAt = Math.max(state.seenAt ?? 0, obs.receivedAt);
  return { state: { seenAt }, drafts: repeated ? [] : [{ type: 'sos', data: { fix: obs.fix !== null && obs.fix.valid } }] };
}
