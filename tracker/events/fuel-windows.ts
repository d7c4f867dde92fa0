// The fuel rule's windows read back from the stored positions, for the units whose window this
// tracker does not hold: after a start, and after another tracker stored the unit's reports (its
// running state then comes from the row, not from what this tracker kept). The readings are the
// unit's last stored ones before the batch's first report, within FUEL_LOOKBACK_MS: the rule needs
// its last minute and the two readings before it.
import type { Queryable } from '../storage/db.js';
import { MAX_READINGS, readingOf, type Reading } from './evaluators/fuel.js';

/** How far back a window is read: a unit silent for longer starts its medians afresh. */
export const FUEL_LOOKBACK_MS = 10 * 60_000;

const WINDOWS = `
  SELECT u.id, (extract(epoch FROM p.device_time) * 1000)::float8 AS t,
    CASE WHEN jsonb_typeof(p.attributes -> 'fuel') = 'number' THEN (p.attributes ->> 'fuel')::float8 END AS fuel,
    CASE WHEN jsonb_typeof(p.attributes -> 'fuelLevel') = 'number' THEN (p.attributes ->> 'fuelLevel')::float8 END AS level
  FROM unnest($1::text[], $2::float8[]) AS u(id, before)
  CROSS JOIN LATERAL (
    SELECT device_time, attributes FROM positions
    WHERE device_id = u.id AND device_time < to_timestamp(u.before / 1000) AND device_time >= to_timestamp((u.before - ${FUEL_LOOKBACK_MS}) / 1000)
      AND filtered IS NULL AND (attributes ? 'fuel' OR attributes ? 'fuelLevel')
    ORDER BY device_time DESC LIMIT ${MAX_READINGS}) p`;

export interface WindowWanted {
  id: string;
  /** Device time of the batch's first report of the unit, ms. */
  before: number;
  tankLitres: number | null;
}

/** Each unit's readings in time order (an empty window for a unit with none stored). */
export async function readFuelWindows(tx: Queryable, wanted: readonly WindowWanted[]): Promise<Map<string, Reading[]>> {
  const windows = new Map<string, Reading[]>(wanted.map((w) => [w.id, []]));
  if (wanted.length === 0) return windows;
  const tanks = new Map(wanted.map((w) => [w.id, w.tankLitres]));
  const rows = await tx.query<{ id: string; t: number; fuel: number | null; level: number | null }>(WINDOWS, [wanted.map((w) => w.id), wanted.map((w) => w.before)]);
  for (const r of rows) {
    const reading = readingOf(r.t, r.fuel ?? undefined, r.level ?? undefined, tanks.get(r.id)!);
    if (reading) windows.get(r.id)!.push(reading);
  }
  for (const w of windows.values()) w.sort((a, b) => a.t - b.t);
  return windows;
}
