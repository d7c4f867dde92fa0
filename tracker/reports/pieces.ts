// The report query: a device's positions in a range reduced, where they are stored, to "pieces":
// runs of consecutive records with the same motion state within one UTC day. One pass over the
// positions in time order (one window, no second sort) and one grouping; what is left is a few rows
// per trip, which detect.ts turns into trips and stops. Nothing is maintained at ingest.
import type { Db } from '../storage/db.js';

/** Above this speed (km/h) a record counts as moving: Traccar's 0.01 knots. */
export const MOTION_KMH = 0.0185;

export interface Point {
  lat: number;
  lng: number;
}

export interface Piece {
  deviceId: string;
  moving: boolean;
  /** UTC day (YYYY-MM-DD) of every record of the piece. */
  day: string;
  /** Device time of its first and last record. */
  start: Date;
  end: Date;
  first: Point;
  /** The record just before the first one, in the range; null for a device's first record. */
  before: (Point & { time: Date }) | null;
  /** Its last record's place: known for the last piece of each device and day. */
  last: Point | null;
  maxSpeed: number;
  /** Odometer (m), engine hours (s) and fuel used (L) at the piece's first and last record; null where not reported. */
  odometer: [number | null, number | null];
  engineHours: [number | null, number | null];
  fuelUsed: [number | null, number | null];
  /** Fuel in the tank (L) at its first record, and at its last for a device's last piece. */
  fuel: [number | null, number | null];
  driverUniqueId: string | null;
}

interface Row {
  d: string;
  moving: boolean;
  day: string;
  t0: Date;
  t1: Date;
  lat0: number;
  lng0: number;
  pt: Date | null;
  plat: number | null;
  plng: number | null;
  latz: number | null;
  lngz: number | null;
  vmax: number;
  odo0: number | null;
  odo1: number | null;
  eh0: number | null;
  eh1: number | null;
  fu0: number | null;
  fu1: number | null;
  fuel0: number | null;
  fuelz: number | null;
  driver: string | null;
}

/**
 * Moving: above MOTION_KMH, unless the device reports its ignition off (a unit towed or drifting
 * with the engine off is not on a trip). Counters are monotonic, so a piece's first and last values
 * are its least and greatest, whichever records lack them (late records carry none). The island key
 * `k` (row number less the count of moving rows so far, or that count for standing rows) is constant
 * along a run of one state, so no second window is needed to number the runs.
 */
const PIECES = `
SELECT d, moving, day::text AS day, min(t) t0, max(t) t1, max(speed) vmax,
  min(odo) odo0, max(odo) odo1, min(eh) eh0, max(eh) eh1, min(fu) fu0, max(fu) fu1, max(driver) driver,
  min(lat) FILTER (WHERE first) lat0, min(lng) FILTER (WHERE first) lng0, min(fuel) FILTER (WHERE first) fuel0,
  min(pt) FILTER (WHERE first) pt, min(plat) FILTER (WHERE first) plat, min(plng) FILTER (WHERE first) plng,
  min(lat) FILTER (WHERE nt IS NULL) latz, min(lng) FILTER (WHERE nt IS NULL) lngz,
  min(fuel) FILTER (WHERE nt IS NULL) fuelz
FROM (
    SELECT d, t, lat, lng, speed, odo, eh, fu, fuel, driver, moving, day,
      CASE WHEN moving THEN row_number() OVER w - sum(moving::int) OVER w ELSE sum(moving::int) OVER w END AS k,
      lag(t) OVER w AS pt, lag(lat) OVER w AS plat, lag(lng) OVER w AS plng, lead(t) OVER w AS nt,
      lag(moving) OVER w IS DISTINCT FROM moving OR lag(day) OVER w <> day AS first
    FROM (
      SELECT device_id d, device_time t, lat, lng, speed, (device_time AT TIME ZONE 'UTC')::date AS day,
        (attributes ->> 'odometer')::float8 odo, (attributes ->> 'engineHours')::float8 eh,
        (attributes ->> 'fuelUsed')::float8 fu, (attributes ->> 'fuel')::float8 fuel, attributes ->> 'driverUniqueId' driver,
        speed > ${MOTION_KMH} AND (attributes ->> 'ignition')::boolean IS NOT FALSE AS moving
      FROM positions
      WHERE device_id = ANY($1::text[]) AND device_time >= $2 AND device_time <= $3 AND (device_time < $3 OR $4) AND valid AND filtered IS NULL
    ) b
    WINDOW w AS (PARTITION BY d ORDER BY t ROWS UNBOUNDED PRECEDING)
) x
GROUP BY d, moving, k, day
ORDER BY d, t0`;

/** The pieces of these devices from `from` to `to` (included or not), by device then time. */
export async function readPieces(db: Db, deviceIds: string[], from: Date, to: Date, toIncluded: boolean): Promise<Piece[]> {
  // A plan this short gains nothing from JIT compilation, which costs PostgreSQL half a second here.
  const rows = await db.transaction(async (tx) => {
    if (db.kind === 'postgres') await tx.query('SET LOCAL jit = off');
    return tx.query<Row>(PIECES, [deviceIds, from.toISOString(), to.toISOString(), toIncluded]);
  });
  const pieces = rows.map((r): Piece => ({
    deviceId: r.d,
    moving: r.moving,
    day: r.day,
    start: r.t0,
    end: r.t1,
    first: { lat: r.lat0, lng: r.lng0 },
    before: r.pt === null ? null : { lat: r.plat!, lng: r.plng!, time: r.pt },
    last: r.latz === null ? null : { lat: r.latz, lng: r.lngz! },
    maxSpeed: r.vmax,
    odometer: [r.odo0, r.odo1],
    engineHours: [r.eh0, r.eh1],
    fuelUsed: [r.fu0, r.fu1],
    fuel: [r.fuel0, r.fuelz],
    driverUniqueId: r.driver,
  }));
  // A day's last record is where the next day's first piece came from.
  pieces.forEach((p, i) => {
    const next = pieces[i + 1];
    if (next && next.deviceId === p.deviceId && next.day !== p.day) p.last = next.before && { lat: next.before.lat, lng: next.before.lng };
  });
  return pieces;
}
