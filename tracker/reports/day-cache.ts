// The pieces of a report's range: whole past UTC days from report_days while each day's count of
// positions is what it was when they were computed (an index-only count, far cheaper than the
// pieces), the rest computed from the positions and the days among it kept. The days are stitched
// back together as if read in one pass: each day's first piece starts after the day before's last.
import type { Db } from '../storage/db.js';
import { readPieces, type Piece } from './pieces.js';

const DAY_MS = 86_400_000;

interface Cached {
  device_id: string;
  day: string;
  records: number;
  pieces: string;
}

/**
 * A kept day is a JSON array of pieces, each an array of its fields (times in epoch milliseconds):
 * a month of a thousand units is some 600,000 pieces, and reading them back is most of a summary's
 * time, so they are kept as compact text rather than jsonb objects.
 */
type Stored = [moving: 0 | 1, start: number, end: number, lat: number, lng: number, beforeLat: number | null, beforeLng: number | null, beforeTime: number | null,
  lastLat: number | null, lastLng: number | null, maxSpeed: number, ...countersThenDriver: (number | string | null)[]];

function encode(p: Piece): (number | string | null)[] {
  return [
    p.moving ? 1 : 0, p.start.getTime(), p.end.getTime(), p.first.lat, p.first.lng, p.before?.lat ?? null, p.before?.lng ?? null, p.before?.time.getTime() ?? null,
    p.last?.lat ?? null, p.last?.lng ?? null, p.maxSpeed, ...p.odometer, ...p.engineHours, ...p.fuelUsed, ...p.fuel, p.driverUniqueId,
  ];
}

function decode(deviceId: string, day: string, s: Stored): Piece {
  const rest = s.slice(11);
  const n = (i: number): number | null => (typeof rest[i] === 'number' ? (rest[i] as number) : null);
  return {
    deviceId,
    day,
    moving: s[0] === 1,
    start: new Date(s[1]),
    end: new Date(s[2]),
    first: { lat: s[3], lng: s[4] },
    before: s[7] === null ? null : { lat: s[5]!, lng: s[6]!, time: new Date(s[7]) },
    last: s[8] === null ? null : { lat: s[8], lng: s[9]! },
    maxSpeed: s[10],
    odometer: [n(0), n(1)],
    engineHours: [n(2), n(3)],
    fuelUsed: [n(4), n(5)],
    fuel: [n(6), n(7)],
    driverUniqueId: typeof rest[8] === 'string' ? rest[8] : null,
  };
}

/**
 * The pieces of these devices in [from, to] (both included), by device then time: read from `db` (the
 * read replica when there is one), the days computed kept through `writes` (the primary).
 */
export async function rangePieces(db: Db, writes: Db, deviceIds: string[], from: Date, to: Date, now = new Date()): Promise<Piece[]> {
  // Whole days inside the range that have ended.
  const firstDay = Math.ceil(from.getTime() / DAY_MS) * DAY_MS;
  const endDay = Math.min(Math.floor(to.getTime() / DAY_MS), Math.floor(now.getTime() / DAY_MS)) * DAY_MS;
  if (endDay <= firstDay) return readPieces(db, deviceIds, from, to, true);

  const cached = await db.query<Cached>(
    `SELECT device_id, to_char(day, 'YYYY-MM-DD') AS day, records, pieces FROM report_days WHERE device_id = ANY($1::text[]) AND day >= $2::date AND day < $3::date`,
    [deviceIds, iso(firstDay), iso(endDay)],
  );
  const counts = await dayCounts(db, deviceIds, firstDay, endDay, cached);
  const kept = new Map<string, Piece[]>();
  for (const r of cached) {
    const key = `${r.device_id} ${r.day}`;
    if (r.records === (counts.get(key) ?? 0)) kept.set(key, (JSON.parse(r.pieces) as Stored[]).map((p) => decode(r.device_id, r.day, p)));
  }
  const stale = new Map([...counts].filter(([key]) => !kept.has(key)));

  // Computed: the partial days at either end, and runs of days missing or changed (for the devices concerned).
  const spans: { from: Date; to: Date; toIncluded: boolean; devices: string[] }[] = [];
  if (from.getTime() < firstDay) spans.push({ from, to: new Date(firstDay), toIncluded: false, devices: deviceIds });
  for (let day = firstDay; day < endDay; ) {
    const devices = deviceIds.filter((id) => stale.has(`${id} ${iso(day)}`));
    if (devices.length === 0) {
      day += DAY_MS;
      continue;
    }
    let end = day + DAY_MS;
    while (end < endDay && deviceIds.some((id) => stale.has(`${id} ${iso(end)}`))) end += DAY_MS;
    const concerned = deviceIds.filter((id) => Array.from({ length: (end - day) / DAY_MS }, (_, i) => iso(day + i * DAY_MS)).some((d) => stale.has(`${id} ${d}`)));
    spans.push({ from: new Date(day), to: new Date(end), toIncluded: false, devices: concerned });
    day = end;
  }
  if (endDay <= to.getTime()) spans.push({ from: new Date(endDay), to, toIncluded: true, devices: deviceIds });

  const computed: Piece[] = [];
  for (const span of spans) computed.push(...(await readPieces(db, span.devices, span.from, span.to, span.toIncluded)));
  const fresh = new Map<string, Piece[]>();
  for (const p of computed) {
    const key = `${p.deviceId} ${p.day}`;
    const list = fresh.get(key);
    if (list) list.push(p);
    else fresh.set(key, [p]);
  }
  await keep(writes, [...stale].filter(([key]) => fresh.has(key)).map(([key, records]) => ({ key, records, pieces: fresh.get(key)! })));

  // A span computes every day of the units concerned, kept ones too: the fresh pieces stand.
  const all = [...new Map([...kept, ...fresh]).values()].flat();
  all.sort((a, b) => (a.deviceId === b.deviceId ? a.start.getTime() - b.start.getTime() : a.deviceId < b.deviceId ? -1 : 1));
  return stitch(all);
}

const iso = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** Past this many positions per unit and day (by the kept counts), counting each day apart is cheaper than grouping. */
const DENSE_DAY = 1000;

/**
 * Positions per unit and day (`device day` → count; days without any left out). A count per day is
 * an index-only scan but costs a few hundred microseconds to start; one grouped scan costs a fraction
 * of a microsecond per row: the kept counts tell which is cheaper.
 */
async function dayCounts(db: Db, deviceIds: string[], firstDay: number, endDay: number, cached: Cached[]): Promise<Map<string, number>> {
  const dense = cached.length > 0 && cached.reduce((n, r) => n + r.records, 0) / cached.length > DENSE_DAY;
  const params = [deviceIds, new Date(firstDay).toISOString(), new Date(endDay).toISOString()];
  const rows = dense
    ? await db.query<{ device_id: string; day: string; n: number }>(
        `SELECT d AS device_id, to_char(g AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
           (SELECT count(*)::int FROM positions p WHERE p.device_id = d AND p.device_time >= g AND p.device_time < g + interval '24 hours') AS n
         FROM unnest($1::text[]) d CROSS JOIN generate_series($2::timestamptz, $3::timestamptz - interval '24 hours', interval '24 hours') g`,
        params,
      )
    : await db.query<{ device_id: string; day: string; n: number }>(
        `SELECT device_id, ((device_time AT TIME ZONE 'UTC')::date)::text AS day, count(*)::int AS n
         FROM positions WHERE device_id = ANY($1::text[]) AND device_time >= $2 AND device_time < $3 GROUP BY 1, 2`,
        params,
      );
  return new Map(rows.filter((r) => r.n > 0).map((r) => [`${r.device_id} ${r.day}`, r.n]));
}

async function keep(db: Db, days: { key: string; records: number; pieces: Piece[] }[]): Promise<void> {
  if (days.length === 0) return;
  await db.query(
    `INSERT INTO report_days (device_id, day, records, pieces)
     SELECT * FROM unnest($1::text[], $2::date[], $3::int[], $4::text[])
     ON CONFLICT (device_id, day) DO UPDATE SET records = excluded.records, pieces = excluded.pieces`,
    [days.map((d) => d.key.split(' ')[0]), days.map((d) => d.key.split(' ')[1]), days.map((d) => d.records), days.map((d) => JSON.stringify(d.pieces.map(encode)))],
  );
}

/** Each device's first piece of a day follows the last piece before it, whichever query read them. */
function stitch(pieces: Piece[]): Piece[] {
  pieces.forEach((p, i) => {
    const prev = pieces[i - 1];
    if (!prev || prev.deviceId !== p.deviceId) p.before = null;
    else if (prev.day !== p.day && prev.last) p.before = { ...prev.last, time: prev.end };
  });
  return pieces;
}
