// Positions: stored per device, read back in time order for history.
import type { DecodedPosition } from '../protocols/types.js';
import type { Queryable } from '../storage/db.js';
import type { FlagReason } from './filters.js';

export interface DevicePosition {
  deviceId: string;
  position: DecodedPosition;
  /** The filter that flagged it: stored, but it moves nothing and raises no events. */
  filtered?: FlagReason;
}

/**
 * A row as json_to_recordset reads it (one native stringify for the batch: no array literals to
 * escape). The time goes as epoch milliseconds: a number is far cheaper to write than ISO text. The
 * keys are one or two letters (the record's column names below): a GT06 row is 307 bytes instead
 * of 361, less to send and for the database to parse.
 */
function asRecord(r: DevicePosition): Record<string, unknown> {
  const p = r.position;
  return { d: r.deviceId, t: p.deviceTime.getTime(), v: p.valid, y: p.lat, x: p.lng, s: p.speed, h: p.heading, al: p.altitude, n: p.satellites, a: p.attributes, f: r.filtered };
}

/**
 * Stores a batch of positions from any devices in one statement (the devices' current positions move
 * with their state, positions/device-state.ts). A record already stored (same device and time, as
 * when a device re-sends after a lost ACK) is skipped. Returns the rows that were new (the first of
 * any repeated within the batch), which are the ones events are judged on.
 */
export async function insertPositions(db: Queryable, rows: DevicePosition[]): Promise<DevicePosition[]> {
  if (rows.length === 0) return [];
  // The usual batch stores every row: then only a count comes back, and the rows stored are named
  // (device and epoch milliseconds) only when some were skipped.
  const [result] = await db.query<{ n: number; fresh: [string, number][] | null }>(
    `WITH added AS (
       INSERT INTO positions (device_id, device_time, valid, lat, lng, speed, heading, altitude, satellites, attributes, filtered)
       SELECT d, to_timestamp(t / 1000), v, y, x, s, h, al, n, a, f
       FROM json_to_recordset($1::json) AS r(d text, t float8, v boolean, y float8, x float8, s real, h real, al real, n smallint, a jsonb, f text)
       ON CONFLICT DO NOTHING RETURNING device_id, device_time)
     SELECT count(*)::int AS n,
       CASE WHEN count(*) < $2 THEN json_agg(json_build_array(device_id, (extract(epoch FROM device_time) * 1000)::float8)) END AS fresh
     FROM added`,
    [JSON.stringify(rows.map(asRecord)), rows.length],
  );
  if (result!.n === rows.length) return rows;
  const fresh = new Set((result!.fresh ?? []).map(([id, t]) => `${id} ${t}`));
  return rows.filter((r) => fresh.delete(`${r.deviceId} ${r.position.deviceTime.getTime()}`));
}

/**
 * SQL and parameters for a device's history in [from, to], oldest first, after an optional time
 * (ISO 8601, to the microsecond). `columns` is the select list.
 */
export function historyQuery(columns: string, deviceId: string, from: Date, to: Date, after: string | null, limit: number | null): { sql: string; params: string[] } {
  const params: string[] = [deviceId, from.toISOString(), to.toISOString()];
  let sql = `SELECT ${columns} FROM positions WHERE device_id = $1 AND device_time >= $2 AND device_time <= $3`;
  if (after) {
    params.push(after);
    sql += ` AND device_time > $${params.length}`;
  }
  sql += ' ORDER BY device_time';
  if (limit !== null) sql += ` LIMIT ${limit}`;
  return { sql, params };
}
