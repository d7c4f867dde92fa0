// geofence_enter / geofence_exit: one event per transition, judged on valid fixes only. The state
// is the set of geofences the device was inside at its last valid fix; a device with no state yet
// counts as outside everything, so its first fix inside a geofence is an entry (as is the first
// fix after a geofence is created around it). A deleted geofence is forgotten without an exit.
import type { Contains } from '../../geofences/shape.js';
import type { Observation, Outcome } from './types.js';

export interface ActiveGeofence {
  id: string;
  name: string;
  contains: Contains;
}

export interface GeofenceState {
  inside?: string[];
}

export function geofenceRule(state: GeofenceState, obs: Observation, geofences: readonly ActiveGeofence[]): Outcome<GeofenceState> {
  const fix = obs.fix;
  if (!fix?.valid) return { state, drafts: [] };
  // The usual account has no geofence and its devices are inside none: nothing to judge.
  if (geofences.length === 0 && !state.inside?.length) return { state, drafts: [] };
  const before = new Set(state.inside ?? []);
  const now = geofences.filter((g) => g.contains(fix.lat, fix.lng));
  const nowIds = new Set(now.map((g) => g.id));
  // Leaving one geofence for another reads exit, then enter.
  const drafts = [
    ...geofences.filter((g) => before.has(g.id) && !nowIds.has(g.id)).map((g) => ({ type: 'geofence_exit' as const, data: { geofenceId: g.id, geofenceName: g.name } })),
    ...now.filter((g) => !before.has(g.id)).map((g) => ({ type: 'geofence_enter' as const, data: { geofenceId: g.id, geofenceName: g.name } })),
  ];
  const unchanged = drafts.length === 0 && before.size === nowIds.size;
  return { state: unchanged ? state : nowIds.size > 0 ? { inside: [...nowIds] } : {}, drafts };
}
