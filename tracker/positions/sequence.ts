// Each device's reports in time order, before they are stored: the filters judge them against the
// device's previous valid fix (its current position), and the counters run on from the device's
// state (positions/device-state.ts, read and locked in the batch's transaction).
import { advance } from './counters.js';
import type { DeviceState } from './device-state.js';
import type { Fix } from './distance.js';
import { filterReason, type FilterSettings, type FlagReason } from './filters.js';
import type { DevicePosition } from './repository.js';
import type { Telemetry } from './telemetry.js';

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
  const out: (DevicePosition | null)[] = rows.slice();
  const dropped: FlagReason[] = [];
  // Each device's rows, by index; a device's one row (the usual case) needs no list.
  const byDevice = new Map<string, number | number[]>();
  for (let i = 0; i < rows.length; i++) {
    const id = rows[i]!.deviceId;
    const seen = byDevice.get(id);
    if (seen === undefined) byDevice.set(id, i);
    else if (typeof seen === 'number') byDevice.set(id, [seen, i]);
    else seen.push(i);
  }
  for (const [id, mine] of byDevice) {
    const state = states.get(id);
    if (!state) continue;
    if (typeof mine === 'number') {
      step(rows, out, dropped, mine, state, state.current, settings, now);
      continue;
    }
    mine.sort((a, b) => rows[a]!.position.deviceTime.getTime() - rows[b]!.position.deviceTime.getTime());
    let previous: Fix | null = state.current;
    for (const i of mine) previous = step(rows, out, dropped, i, state, previous, settings, now);
  }
  return { rows: dropped.length === 0 ? (out as DevicePosition[]) : out.filter((r): r is DevicePosition => r !== null), dropped };
}

/** Filters and counts row i on top of its device's state; returns the device's previous valid fix for its next row. */
function step(rows: DevicePosition[], out: (DevicePosition | null)[], dropped: FlagReason[], i: number, state: DeviceState, previous: Fix | null, settings: SequenceSettings, now: number): Fix | null {
  const row = rows[i]!;
  const p = row.position;
  const reason = filterReason(p, previous, settings.filters, now);
  if (reason) {
    if (settings.filters[reason] === 'drop') {
      out[i] = null;
      dropped.push(reason);
    } else out[i] = { deviceId: row.deviceId, position: p, filtered: reason };
    return previous;
  }
  const time = p.deviceTime.getTime();
  if (p.valid && (!state.current || state.current.time.getTime() < time)) {
    state.current = { lat: p.lat, lng: p.lng, speed: p.speed, heading: p.heading, time: p.deviceTime };
    state.changed.current = true;
  }
  const counted = state.counters.time;
  if (counted && time <= counted.getTime()) return previous; // late or repeated: stored, not counted
  const next = advance(state.counters, p, previous, settings.engineHoursMaxGapMs);
  state.counters = next.counters;
  state.changed.counters = true;
  if (next.computed.odometer !== undefined || next.computed.engineHours !== undefined) {
    // A copy: the waiter's own row stays as it came, should the batch be split and sequenced again.
    const { odometer, engineHours } = next.computed;
    const attributes: Telemetry = Object.assign({}, p.attributes);
    if (odometer !== undefined) attributes.odometer = odometer;
    if (engineHours !== undefined) attributes.engineHours = engineHours;
    attributes.computed = odometer === undefined ? 'engineHours' : engineHours === undefined ? 'odometer' : 'odometer,engineHours';
    out[i] = { deviceId: row.deviceId, position: { ...p, attributes } };
  }
  return p.valid && (!previous || previous.time.getTime() < time) ? { lat: p.lat, lng: p.lng, time: p.deviceTime } : previous;
}
