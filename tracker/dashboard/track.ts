// A device's valid fixes in a period (none a filter flagged), thinned on the server to at most
// MAX_TRACK_POINTS evenly spaced ones (always keeping the first and the last), so a 90-day track
// stays a small page.
import type { Queryable } from '../storage/db.js';
import type { TrackPoint } from './track-svg.js';

export const MAX_TRACK_POINTS = 2000;

interface Row {
  lat: number;
  lng: number;
  device_time: Date;
}

export async function loadTrack(db: Queryable, deviceId: string, from: Date, to: Date, max = MAX_TRACK_POINTS): Promise<{ total: number; points: TrackPoint[] }> {
  const range = [deviceId, from.toISOString(), to.toISOString()];
  const where = 'device_id = $1 AND device_time >= $2 AND device_time <= $3 AND valid AND filtered IS NULL';
  const total = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM positions WHERE ${where}`, range))[0]!.n;
  const stride = Math.ceil(total / max);
  const rows =
    stride <= 1
      ? await db.query<Row>(`SELECT lat, lng, device_time FROM positions WHERE ${where} ORDER BY device_time`, range)
      : await db.query<Row>(
          `SELECT lat, lng, device_time FROM (
             SELECT lat, lng, device_time, row_number() OVER (ORDER BY device_time) AS n FROM positions WHERE ${where}
           ) numbered WHERE (n - 1) % $4 = 0 OR n = $5 ORDER BY device_time`,
          [...range, stride, total],
        );
  return { total, points: rows.map((r) => ({ lat: r.lat, lng: r.lng, time: new Date(r.device_time) })) };
}
