// Each device's reports in time order, before they are stored: the filters judge them against the
// device's previous valid fix (its current position), and the counters run on from the device's
// state (positions/device-state.ts, read and locked in the batch's transaction).
import { advance } from './counters.js';
import type { DeviceState } from './device-state.js';
import type { Fix } from './distance.js';
import { filterReason, type FilterSettings, type FlagReason } from './filters.js';
import type { DevicePosition } from './repository.js';

export interface SequenceSettings {
  filters: FilterSettings;
  /** The longest gap between two reports counted as engine time (ENGINE_HOURS_MAX_GAP), ms. */
  engineHoursMaxGapMs: number;
}

export interface Sequenced {
  /** What to store: flagged rows carry `filtered`, counted ones their computed counters. */
  rows: DevicePosition[];
  /** Rows a filter set to `drop` left out, by reason. */
  dropped: FlagReason[];
}

/**
 * Filters and counts `rows` against their devices' `states`, moving each state's counters and current
 * position on. Rows of a device without a state are left as they are.
 */
export function sequence(rows: DevicePosition[], states: Map<string, DeviceState>, settings: SequenceSettings, now = Date.now()): Sequenced {
  const out: (DevicePosition | null)[] = [...rows];
  const dropped: FlagReason[] = [];
  const byDevice = new Map<string, number[]>();
  rows.forEach((row, i) => {
    const list = byDevice.get(row.deviceId);
    if (list) list.push(i);
    else byDevice.set(row.deviceId, [i]);
  });
  for (const [id, mine] of byDevice) {
    const state = states.get(id);
    if (!state) continue;
    if (mine.length > 1) mine.sort((a, b) => rows[a]!.position.deviceTime.getTime() - rows[b]!.position.deviceTime.getTime());
    let previous: Fix | null = state.current;
    for (const i of mine) {
      const row = rows[i]!;
      const p = row.position;
      const reason = filterReason(p, previous, settings.filters, now);
      if (reason) {
        if (settings.filters[reason] === 'drop') {
          out[i] = null;
          dropped.push(reason);
        } else out[i] = { ...row, filtered: reason };
        continue;
      }
      if (p.valid && (!state.current || state.current.time < p.deviceTime)) {
        state.current = { lat: p.lat, lng: p.lng, speed: p.speed, heading: p.heading, time: p.deviceTime };
        state.changed.current = true;
      }
      const counted = state.counters.time;
      if (counted && p.deviceTime <= counted) continue; // late or repeated: stored, not counted
      const next = advance(state.counters, p, previous, settings.engineHoursMaxGapMs);
      state.counters = next.counters;
      state.changed.counters = true;
      const keys = Object.keys(next.computed);
      if (keys.length > 0) out[i] = { ...row, position: { ...p, attributes: { ...p.attributes, ...next.computed, computed: keys.join(',') } } };
      if (p.valid && (!previous || previous.time < p.deviceTime)) previous = { lat: p.lat, lng: p.lng, time: p.deviceTime };
    }
  }
  return { rows: out.filter((r): r is DevicePosition => r !== null), dropped };
}
