// Positions: stored per device, read back in time order for history.
import type { DecodedPosition } from '../protocols/types.js';
import type { Queryable } from '../storage/db.js';

export interface PositionRow {
  lat: number;
  lng: number;
  speed: number;
  heading: number;
  device_time: Date;
}

/** Inserts positions; a record already stored (same device and time) is skipped. */
export async function insertPositions(db: Queryable, deviceId: string, positions: DecodedPosition[]): Promise<void> {
  if (positions.length === 0) return;
  await db.query(
    `INSERT INTO positions (device_id, device_time, valid, lat, lng, speed, heading, altitude, satellites, attributes)
     SELECT $1, * FROM unnest($2::timestamptz[], $3::boolean[], $4::float8[], $5::float8[], $6::real[], $7::real[], $8::real[], $9::smallint[], $10::jsonb[])
     ON CONFLICT DO NOTHING`,
    [
      deviceId,
      positions.map((p) => p.deviceTime.toISOString()),
      positions.map((p) => p.valid),
      positions.map((p) => p.lat),
      positions.map((p) => p.lng),
      positions.map((p) => p.speed),
      positions.map((p) => p.heading),
      positions.map((p) => p.altitude ?? null),
      positions.map((p) => p.satellites ?? null),
      positions.map((p) => JSON.stringify(p.attributes)),
    ],
  );
}

/** SQL and parameters for a device's history in [from, to], oldest first, after an optional time. */
export function historyQuery(deviceId: string, from: Date, to: Date, after: Date | null, limit: number | null): { sql: string; params: unknown[] } {
  const params: unknown[] = [deviceId, from.toISOString(), to.toISOString()];
  let sql = 'SELECT lat, lng, speed, heading, device_time FROM positions WHERE device_id = $1 AND device_time >= $2 AND device_time <= $3';
  if (after) {
    params.push(after.toISOString());
    sql += ` AND device_time > $${params.length}`;
  }
  sql += ' ORDER BY device_time';
  if (limit !== null) sql += ` LIMIT ${limit}`;
  return { sql, params };
}
