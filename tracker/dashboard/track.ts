// A device's valid fixes in a period (none a filter flagged): thinned on the server to at most
// MAX_TRACK_POINTS evenly spaced ones (always keeping the first and the last) for the drawing a
// page carries, so a 90-day track stays a small page; and a page of them for the position table.
import type { Queryable } from '../storage/db.js';
import type { TrackPoint } from './track-svg.js';

export const MAX_TRACK_POINTS = 2000;
/** A device's positions drawn on its track ($1 the device, $2 and $3 the period). */
export const TRACK_WHERE = 'device_id = $1 AND device_time >= $2 AND device_time <= $3 AND valid AND filtered IS NULL';

interface Row {
  lat: number;
  lng: number;
  device_time: Date;
}

export async function loadTrack(db: Queryable, deviceId: string, from: Date, to: Date, max = MAX_TRACK_POINTS): Promise<{ total: number; points: TrackPoint[] }> {
  const range = [deviceId, from.toISOString(), to.toISOString()];
  const total = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM positions WHERE ${TRACK_WHERE}`, range))[0]!.n;
  const stride = Math.ceil(total / max);
  const rows =
    stride <= 1
      ? await db.query<Row>(`SELECT lat, lng, device_time FROM positions WHERE ${TRACK_WHERE} ORDER BY device_time`, range)
      : await db.query<Row>(
          `SELECT lat, lng, device_time FROM (
             SELECT lat, lng, device_time, row_number() OVER (ORDER BY device_time) AS n FROM positions WHERE ${TRACK_WHERE}
           ) numbered WHERE (n - 1) % $4 = 0 OR n = $5 ORDER BY device_time`,
          [...range, stride, total],
        );
  return { total, points: rows.map((r) => ({ lat: r.lat, lng: r.lng, time: new Date(r.device_time) })) };
}

/** Rows of the track page's position table per page. */
export const POSITIONS_PER_PAGE = 50;

/** A row of the position table: device time (ISO), latitude, longitude, speed (km/h), heading (°). */
export type PositionRow = [string, number, number, number, number];

/** The `page`-th (from 1) page of a track's positions, oldest first. */
export async function trackPositions(db: Queryable, deviceId: string, from: Date, to: Date, page: number): Promise<PositionRow[]> {
  const rows = await db.query<{ device_time: Date; lat: number; lng: number; speed: number; heading: number }>(
    `SELECT device_time, lat, lng, speed, heading FROM positions WHERE ${TRACK_WHERE} ORDER BY device_time LIMIT $4 OFFSET $5`,
    [deviceId, from.toISOString(), to.toISOString(), POSITIONS_PER_PAGE, (page - 1) * POSITIONS_PER_PAGE],
  );
  return rows.map((r) => [new Date(r.device_time).toISOString(), r.lat, r.lng, r.speed, r.heading]);
}
