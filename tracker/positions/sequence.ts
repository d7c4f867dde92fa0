// Each device's reports in time order, in the batch's transaction, before they are stored: the
// filters judge them against the device's previous valid fix (its current position), and the
// counters run on from the stored state. The device rows are locked first, in id order, so two
// trackers writing for one device take turns and a stretch is never counted twice or lost.
import type { Queryable } from '../storage/db.js';
import { advance, type Counters } from './counters.js';
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

interface StateRow {
  id: string;
  last_lat: number | null;
  last_lng: number | null;
  last_update: Date | null;
  report_time: Date | null;
  odometer: number | null;
  engine_hours: number | null;
  ignition: boolean | null;
}

const STATE = `
  SELECT d.id, d.last_lat, d.last_lng, d.last_update, c.report_time, c.odometer, c.engine_hours, c.ignition
  FROM devices d LEFT JOIN device_counters c ON c.device_id = d.id
  WHERE d.id = ANY($1) ORDER BY d.id FOR UPDATE OF d`;

export async function sequence(tx: Queryable, rows: DevicePosition[], settings: SequenceSettings, now = Date.now()): Promise<Sequenced> {
  if (rows.length === 0) return { rows, dropped: [] };
  const states = await tx.query<StateRow>(STATE, [[...new Set(rows.map((r) => r.deviceId))].sort()]);
  const out: (DevicePosition | null)[] = [...rows];
  const dropped: FlagReason[] = [];
  const saved: { id: string; counters: Counters }[] = [];
  const byDevice = new Map<string, { row: DevicePosition; i: number }[]>();
  rows.forEach((row, i) => {
    const list = byDevice.get(row.deviceId);
    if (list) list.push({ row, i });
    else byDevice.set(row.deviceId, [{ row, i }]);
  });
  for (const state of states) {
    const mine = byDevice.get(state.id)!;
    mine.sort((a, b) => a.row.position.deviceTime.getTime() - b.row.position.deviceTime.getTime());
    let previous: Fix | null =
      state.last_update && Number.isFinite(state.last_lat) && Number.isFinite(state.last_lng) ? { lat: state.last_lat!, lng: state.last_lng!, time: state.last_update } : null;
    // A device from before the counters starts counting after its current position.
    let counters: Counters = { time: state.report_time ?? state.last_update, odometer: state.odometer, engineHours: state.engine_hours, ignition: state.ignition };
    const counted = counters.time;
    for (const { row, i } of mine) {
      const p = row.position;
      const reason = filterReason(p, previous, settings.filters, now);
      if (reason) {
        if (settings.filters[reason] === 'drop') {
          out[i] = null;
          dropped.push(reason);
        } else out[i] = { ...row, filtered: reason };
        continue;
      }
      if (counters.time && p.deviceTime <= counters.time) continue; // late or repeated: stored, not counted
      const next = advance(counters, p, previous, settings.engineHoursMaxGapMs);
      counters = next.counters;
      const keys = Object.keys(next.computed);
      if (keys.length > 0) out[i] = { ...row, position: { ...p, attributes: { ...p.attributes, ...next.computed, computed: keys.join(',') } } };
      if (p.valid && (!previous || previous.time < p.deviceTime)) previous = { lat: p.lat, lng: p.lng, time: p.deviceTime };
    }
    if (counters.time !== counted) saved.push({ id: state.id, counters });
  }
  if (saved.length > 0) {
    await tx.query(
      `INSERT INTO device_counters (device_id, report_time, odometer, engine_hours, ignition)
       SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::float8[], $4::float8[], $5::boolean[])
       ON CONFLICT (device_id) DO UPDATE SET report_time = excluded.report_time, odometer = excluded.odometer, engine_hours = excluded.engine_hours, ignition = excluded.ignition`,
      [
        saved.map((s) => s.id),
        saved.map((s) => s.counters.time!.toISOString()),
        saved.map((s) => s.counters.odometer),
        saved.map((s) => s.counters.engineHours),
        saved.map((s) => s.counters.ignition),
      ],
    );
  }
  return { rows: out.filter((r): r is DevicePosition => r !== null), dropped };
}
