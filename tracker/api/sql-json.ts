// Public JSON rendered by PostgreSQL itself for the two large responses (device lists, position
// history): the tracker then passes text through instead of parsing and re-serialising each value.
import type { Queryable } from '../storage/db.js';

/** ISO 8601 UTC with milliseconds, as JavaScript's toISOString() writes it. */
export const isoSql = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** A device as the API shows it: a device that never reported has no position and speed 0. */
const DEVICE_JSON = `json_build_object(
  'id', id, 'name', name, 'plate', plate, 'imei', imei, 'status', status,
  'speed', CASE WHEN last_lat IS NULL THEN 0 ELSE last_speed END,
  'position', CASE WHEN last_lat IS NULL THEN NULL ELSE json_build_object('lat', last_lat, 'lng', last_lng) END,
  'lastUpdate', ${isoSql('last_update')})`;

export async function devicesJson(db: Queryable, accountId: string): Promise<string> {
  const rows = await db.query<{ json: string }>(`SELECT coalesce(json_agg(${DEVICE_JSON} ORDER BY id), '[]')::text AS json FROM devices WHERE account_id = $1`, [accountId]);
  return rows[0]!.json;
}

export async function deviceJson(db: Queryable, accountId: string, id: string): Promise<string | null> {
  const rows = await db.query<{ json: string }>(`SELECT ${DEVICE_JSON}::text AS json FROM devices WHERE account_id = $1 AND id = $2`, [accountId, id]);
  return rows[0]?.json ?? null;
}

/** A position row rendered as its JSON text (j) with its time (t) for page cursors. */
export const POSITION_JSON = `'{"lat":' || lat || ',"lng":' || lng || ',"speed":' || speed || ',"heading":' || heading || ',"timestamp":"' || ${isoSql('device_time')} || '"}' AS j, ${isoSql('device_time')} AS t`;
