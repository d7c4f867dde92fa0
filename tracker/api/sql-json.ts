// Public JSON of devices rendered by PostgreSQL itself (large device lists): the tracker then passes
// text through instead of parsing and re-serialising each value.
import type { Queryable } from '../storage/db.js';

/** ISO 8601 UTC with milliseconds, as JavaScript's toISOString() writes it. */
const isoSql = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** PostgreSQL's floats include Infinity, -Infinity and NaN (NaN equals itself there), which JSON cannot carry. */
const finite = (column: string) => `${column} NOT IN ('Infinity', '-Infinity', 'NaN')`;
/** A stored number as JSON: a non-finite one (refused on the way in; older rows may hold one) is null. */
const jsonNumber = (column: string) => `CASE WHEN ${finite(column)} THEN ${column}::text ELSE 'null' END`;

/**
 * A device as the API shows it: a device that never reported has no position and speed 0. Its
 * latest telemetry is stored as JSON text in the shape shown (positions/device-state.ts), so it is
 * copied.
 * Built by string concatenation (half the time of json_build_object for large lists); ids, IMEIs
 * and statuses are plain ASCII by their constraints, names and plates are escaped by to_json.
 */
const DEVICE_JSON = `'{"id":"' || id || '","name":' || to_json(name) || ',"plate":' || to_json(plate) ||
  ',"imei":"' || imei || '","status":"' || status || '","speed":' || CASE WHEN last_lat IS NULL THEN '0' ELSE ${jsonNumber('last_speed')} END ||
  ',"position":' || CASE WHEN last_lat IS NULL OR NOT (${finite('last_lat')} AND ${finite('last_lng')}) THEN 'null' ELSE '{"lat":' || last_lat || ',"lng":' || last_lng || '}' END ||
  ',"lastUpdate":' || CASE WHEN last_update IS NULL THEN 'null' ELSE '"' || ${isoSql('last_update')} || '"' END ||
  ',"telemetry":' || telemetry || '}'`;

/** The account's devices as a JSON array, and how many there are. */
export async function devicesJson(db: Queryable, accountId: string): Promise<{ json: string; count: number }> {
  const rows = await db.query<{ json: string; count: number }>(
    `SELECT '[' || coalesce(string_agg(${DEVICE_JSON}, ',' ORDER BY id), '') || ']' AS json, count(*)::int AS count FROM devices WHERE account_id = $1`,
    [accountId],
  );
  return rows[0]!;
}

/** A page of the account's devices in the unpaged list's order (by id), after `afterId`: each as JSON. */
export async function devicesJsonPage(db: Queryable, accountId: string, afterId: string | null, limit: number): Promise<{ id: string; json: string }[]> {
  return db.query<{ id: string; json: string }>(
    `SELECT id, ${DEVICE_JSON} AS json FROM devices WHERE account_id = $1 AND ($2::text IS NULL OR id > $2) ORDER BY id LIMIT $3`,
    [accountId, afterId, limit],
  );
}

/** These devices of the account as JSON, by id. */
export async function devicesJsonByIds(db: Queryable, accountId: string, ids: readonly string[]): Promise<Map<string, string>> {
  const rows = await db.query<{ id: string; json: string }>(`SELECT id, ${DEVICE_JSON} AS json FROM devices WHERE account_id = $1 AND id = ANY($2)`, [accountId, ids]);
  return new Map(rows.map((r) => [r.id, r.json]));
}

export async function deviceJson(db: Queryable, accountId: string, id: string): Promise<string | null> {
  const rows = await db.query<{ json: string }>(`SELECT ${DEVICE_JSON} AS json FROM devices WHERE account_id = $1 AND id = $2`, [accountId, id]);
  return rows[0]?.json ?? null;
}

