// A track simplified where it is stored, for the map's zoom and view: one pass over the positions
// in time order projects each to its Web Mercator pixel at that zoom and keeps a position only
// where the track enters another cell of the pixel grid, so what is drawn differs from the whole
// track by less than a cell. The query hands over the cell changes at one pixel (at eight, or 64,
// if there are more than MAX_ROWS); here the cell doubles (up to 256 times) until at most
// MAX_DETAIL_POINTS remain, and beyond that every n-th is kept. Given a view, only the positions in it
// and their neighbours just outside are kept, in parts (the track may leave the view and come
// back), each part's first and last position always among them. 1.5 M positions never leave the
// database: the browser gets a few thousand, whatever the period.
import type { Queryable } from '../storage/db.js';
import { TRACK_WHERE } from './track.js';

/** Positions one answer holds at most (a map a few thousand pixels wide needs no more). */
export const MAX_DETAIL_POINTS = 5000;
/** Cells tried: 1, 2, 4 … 256 pixels. */
const LEVELS = 9;

export interface View {
  zoom: number;
  /** Degrees; the whole track without it. */
  bounds: { west: number; south: number; east: number; north: number } | null;
}

/** A position as the map gets it: latitude, longitude, device time (Unix seconds), speed (km/h). */
export type DetailPoint = [number, number, number, number];

export interface Detail {
  /** Side of a grid cell, in pixels at the zoom. */
  cell: number;
  parts: DetailPoint[][];
}

interface Row {
  lat: number;
  lng: number;
  t: number;
  speed: number;
  cx: string;
  cy: string;
  opens: boolean;
  closes: boolean;
}

/** Rows one query may hand over; past it the grid is asked again eight times coarser. */
const MAX_ROWS = 200_000;

const worldPixels = (zoom: number) => 256 * 2 ** zoom;
const pixelX = (lng: number, zoom: number) => Math.floor(((lng + 180) / 360) * worldPixels(zoom));
const pixelY = (lat: number, zoom: number) => {
  const r = (Math.max(-85.05, Math.min(85.05, lat)) * Math.PI) / 180;
  return Math.floor(((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * worldPixels(zoom));
};

const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;

/**
 * One pass in time order: each position's cell of `cell` pixels, whether it or a neighbour lies in
 * the box (it is shown), and whether it opens or closes a shown part; kept where the cell changes.
 */
async function changes(db: Queryable, range: unknown[], size: number, cell: number, box: number[]): Promise<Row[]> {
  // OFFSET 0 keeps each subquery's values computed once per row, not again in every expression using them.
  return db.query<Row>(
    `SELECT lat, lng, t, speed, cx::text AS cx, cy::text AS cy, shown AND NOT (first_one IS NULL AND (m2 OR m1 OR i0)) AS opens, shown AND NOT (last_one IS NULL AND (i0 OR p1 OR p2)) AS closes
     FROM (
       SELECT *, m1 OR i0 OR p1 AS shown, key IS DISTINCT FROM lag(key) OVER w AS changed
       FROM (
         SELECT lat, lng, t, speed, cx, cy, key, i0,
           coalesce(lag(i0, 2) OVER w, false) AS m2, coalesce(lag(i0) OVER w, false) AS m1,
           coalesce(lead(i0) OVER w, false) AS p1, coalesce(lead(i0, 2) OVER w, false) AS p2, device_time,
           -- null except on the period's first (last) position, which has no neighbour before (after) it
           nullif(lag(false, 1, true) OVER w, false) AS first_one, nullif(lead(false, 1, true) OVER w, false) AS last_one
         FROM (
           SELECT *, ((cx / $9) << 31) | (cy / $9) AS key, cx BETWEEN $5 AND $6 AND cy BETWEEN $7 AND $8 AS i0
           FROM (
             SELECT device_time, lat, lng, speed, extract(epoch FROM device_time)::float8 AS t,
               floor((lng + 180) / 360 * $4)::bigint AS cx,
               floor((1 - ln(tan(radians(greatest(-85.05, least(85.05, lat)))) + 1 / cos(radians(greatest(-85.05, least(85.05, lat))))) / pi()) / 2 * $4)::bigint AS cy
             FROM positions WHERE ${TRACK_WHERE} ORDER BY device_time OFFSET 0
           ) projected OFFSET 0
         ) celled WINDOW w AS (ORDER BY device_time) OFFSET 0
       ) flagged WHERE m1 OR i0 OR p1 WINDOW w AS (ORDER BY device_time) OFFSET 0
     ) marked WHERE changed OR shown AND NOT (first_one IS NULL AND (m2 OR m1 OR i0)) OR shown AND NOT (last_one IS NULL AND (i0 OR p1 OR p2))
     ORDER BY t
     LIMIT ${MAX_ROWS + 1}`,
    [...range, size, ...box, cell],
  );
}

export async function trackDetail(db: Queryable, deviceId: string, from: Date, to: Date, view: View, max = MAX_DETAIL_POINTS): Promise<Detail> {
  const { zoom, bounds } = view;
  const size = worldPixels(zoom);
  // The view in pixels; one across the antimeridian (west east of east) is taken at its whole width.
  const across = bounds !== null && bounds.west > bounds.east;
  const box =
    bounds === null ? [0, size, 0, size] : [across ? 0 : pixelX(bounds.west, zoom), across ? size : pixelX(bounds.east, zoom), pixelY(bounds.north, zoom), pixelY(bounds.south, zoom)];
  const range = [deviceId, from.toISOString(), to.toISOString()];
  let base = 1;
  let rows = await changes(db, range, size, base, box);
  while (rows.length > MAX_ROWS) rows = await changes(db, range, size, (base *= 8), box);

  // The finest cell (doubling from the query's) that keeps at most `max`; then every n-th.
  const cx = rows.map((r) => BigInt(r.cx));
  const cy = rows.map((r) => BigInt(r.cy));
  const keep = (shift: bigint) => {
    const kept: number[] = [];
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i]!;
      if (i === 0 || r.opens || r.closes || rows[i - 1]!.closes || cx[i]! >> shift !== cx[i - 1]! >> shift || cy[i]! >> shift !== cy[i - 1]! >> shift) kept.push(i);
    }
    return kept;
  };
  let level = 0;
  let kept = keep(0n);
  while (kept.length > max && level < LEVELS - 1) kept = keep(BigInt(++level));
  const stride = Math.ceil(kept.length / max);
  if (stride > 1) kept = kept.filter((i, n) => n % stride === 0 || rows[i]!.opens || rows[i]!.closes || i === rows.length - 1);

  const parts: DetailPoint[][] = [];
  for (const i of kept) {
    const r = rows[i]!;
    if (r.opens || parts.length === 0) parts.push([]);
    parts.at(-1)!.push([round(r.lat, 6), round(r.lng, 6), Math.round(r.t), round(r.speed, 1)]);
  }
  return { cell: base * 2 ** level, parts };
}
