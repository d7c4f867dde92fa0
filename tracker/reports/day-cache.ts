// The pieces of a report's range: whole past UTC days from report_days, the rest computed from the
// positions and the days among it kept. A kept day holds until something stores positions into it
// (marks.ts marks it, in the same transaction); it is computed again then, by the next report or by
// the background keeper (keeper.ts). The days are stitched back together as if read in one pass:
// each day's first piece starts after the day before's last.
import type { Db } from '../storage/db.js';
import { readPieces, type Piece } from './pieces.js';

const DAY_MS = 86_400_000;

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
  const n = (i: number): number | null => (typeof s[11 + i] === 'number' ? (s[11 + i] as number) : null);
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
    driverUniqueId: typeof s[19] === 'string' ? s[19] : null,
  };
}

/**
 * Days are kept once they ended this long ago. A batch of positions marks the days that had ended
 * when it was stored; one whose transaction ran across midnight and committed later than this
 * would otherwise leave a day kept without its last records (clocks of tracker processes may differ
 * by as much, too).
 */
export const KEEP_AFTER_MS = 5 * 60_000;

/** The first UTC day (epoch ms) not kept at `now`. */
export const keptBefore = (now: number): number => Math.floor((now - KEEP_AFTER_MS) / DAY_MS) * DAY_MS;

interface Row {
  device_id: string;
  day: string;
  generation: number;
}

/**
 * The pieces of these devices in [from, to] (both included), by device then time: read from `db` (the
 * read replica when there is one), the days computed kept through `writes` (the primary).
 */
export async function rangePieces(db: Db, writes: Db, deviceIds: string[], from: Date, to: Date, now = new Date()): Promise<Piece[]> {
  // Whole days inside the range that may be kept.
  const firstDay = Math.ceil(from.getTime() / DAY_MS) * DAY_MS;
  const endDay = Math.min(Math.floor(to.getTime() / DAY_MS) * DAY_MS, keptBefore(now.getTime()));
  if (endDay <= firstDay) return readPieces(db, deviceIds, from, to, true);

  const rows = await db.query<Row & { pieces: string | null }>(
    `SELECT device_id, to_char(day, 'YYYY-MM-DD') AS day, generation, pieces FROM report_days WHERE device_id = ANY($1::text[]) AND day >= $2::date AND day < $3::date`,
    [deviceIds, iso(firstDay), iso(endDay)],
  );
  const kept = new Map<string, Piece[]>();
  for (const r of rows) if (r.pieces !== null) kept.set(`${r.device_id} ${r.day}`, (JSON.parse(r.pieces) as Stored[]).map((p) => decode(r.device_id, r.day, p)));
  const fresh = await computeDays(db, writes, deviceIds, missingDays(deviceIds, firstDay, endDay, rows, kept), firstDay, endDay);
  if (from.getTime() < firstDay) add(fresh, await readPieces(db, deviceIds, from, new Date(firstDay), false));
  if (endDay <= to.getTime()) add(fresh, await readPieces(db, deviceIds, new Date(endDay), to, true));

  // A span computes every day of the units concerned, kept ones too: the fresh pieces stand. Each
  // day's pieces are in time order, so taking the days in order needs no sort.
  const all: Piece[] = [];
  for (const id of [...deviceIds].sort()) {
    for (let day = Math.floor(from.getTime() / DAY_MS) * DAY_MS; day <= to.getTime(); day += DAY_MS) {
      const key = `${id} ${iso(day)}`;
      for (const p of fresh.get(key) ?? kept.get(key) ?? []) all.push(p);
    }
  }
  return stitch(all);
}

/**
 * Computes and keeps the days of these devices in [firstDay, endDay) that are not kept (never
 * computed, or marked since), from each device's first stored day to its last (a day outside them
 * has no positions: a report computes it at once, so none is kept ahead); returns how many it computed.
 */
export async function keepDays(db: Db, deviceIds: string[], firstDay: number, endDay: number): Promise<number> {
  const spans = await db.query<{ id: string; first: number | null; last: number | null }>(
    `SELECT d.id,
       (SELECT extract(epoch FROM min(p.device_time)) * 1000 FROM positions p WHERE p.device_id = d.id)::float8 AS first,
       (SELECT extract(epoch FROM max(p.device_time)) * 1000 FROM positions p WHERE p.device_id = d.id)::float8 AS last
     FROM devices d WHERE d.id = ANY($1::text[])`,
    [deviceIds],
  );
  const stored = new Map(spans.filter((s) => s.first !== null && s.last !== null).map((s) => [s.id, [Math.floor(s.first! / DAY_MS) * DAY_MS, Math.floor(s.last! / DAY_MS) * DAY_MS + DAY_MS]] as const));
  const ids = deviceIds.filter((id) => stored.has(id));
  if (ids.length === 0) return 0;
  const rows = await db.query<Row & { kept: boolean }>(
    `SELECT device_id, to_char(day, 'YYYY-MM-DD') AS day, generation, pieces IS NOT NULL AS kept FROM report_days WHERE device_id = ANY($1::text[]) AND day >= $2::date AND day < $3::date`,
    [ids, iso(firstDay), iso(endDay)],
  );
  const kept = new Set(rows.filter((r) => r.kept).map((r) => `${r.device_id} ${r.day}`));
  const missing = missingDays(ids, firstDay, endDay, rows, { has: (key) => kept.has(key) || outside(stored, key) });
  await computeDays(db, db, ids, missing, firstDay, endDay);
  return missing.size;
}

/** True when `device day` lies outside the device's stored days. */
function outside(stored: Map<string, readonly [number, number]>, key: string): boolean {
  const [id, day] = key.split(' ') as [string, string];
  const [first, end] = stored.get(id)!;
  const at = Date.parse(day);
  return at < first || at >= end;
}

const iso = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** `device day` → the generation read for each day not kept (0 when it has no row yet). */
function missingDays(deviceIds: string[], firstDay: number, endDay: number, rows: Row[], kept: { has(key: string): boolean }): Map<string, number> {
  const generations = new Map(rows.map((r) => [`${r.device_id} ${r.day}`, r.generation]));
  const missing = new Map<string, number>();
  for (const id of deviceIds) {
    for (let day = firstDay; day < endDay; day += DAY_MS) {
      const key = `${id} ${iso(day)}`;
      if (!kept.has(key)) missing.set(key, generations.get(key) ?? 0);
    }
  }
  return missing;
}

/**
 * The pieces of the missing days, by `device day`, read in runs of consecutive days for the devices
 * concerned (kept days inside a run come along), and kept: a day without valid records as none.
 * The generations were read before the positions, so a day marked meanwhile is not kept (a replica's
 * generation behind the primary's keeps nothing either). Read from `db`, kept through `writes`.
 */
async function computeDays(db: Db, writes: Db, deviceIds: string[], missing: Map<string, number>, firstDay: number, endDay: number): Promise<Map<string, Piece[]>> {
  const fresh = new Map<string, Piece[]>();
  if (missing.size === 0) return fresh;
  for (let day = firstDay; day < endDay; ) {
    if (!deviceIds.some((id) => missing.has(`${id} ${iso(day)}`))) {
      day += DAY_MS;
      continue;
    }
    let end = day + DAY_MS;
    while (end < endDay && deviceIds.some((id) => missing.has(`${id} ${iso(end)}`))) end += DAY_MS;
    const days = Array.from({ length: (end - day) / DAY_MS }, (_, i) => iso(day + i * DAY_MS));
    const concerned = deviceIds.filter((id) => days.some((d) => missing.has(`${id} ${d}`)));
    add(fresh, await readPieces(db, concerned, new Date(day), new Date(end), false));
    day = end;
  }
  await keep(writes, [...missing].sort(([a], [b]) => (a < b ? -1 : 1)).map(([key, generation]) => ({ key, generation, pieces: fresh.get(key) ?? [] })));
  return fresh;
}

function add(byDay: Map<string, Piece[]>, pieces: Piece[]): void {
  for (const p of pieces) {
    const key = `${p.deviceId} ${p.day}`;
    const list = byDay.get(key);
    if (list) list.push(p);
    else byDay.set(key, [p]);
  }
}

/**
 * Keeps computed days, each only if its generation is still the one read before its positions were
 * (or it has no row yet). In key order, as marks.ts locks rows, so the two never deadlock.
 */
async function keep(db: Db, days: { key: string; generation: number; pieces: Piece[] }[]): Promise<void> {
  await db.query(
    `INSERT INTO report_days (device_id, day, generation, pieces)
     SELECT * FROM unnest($1::text[], $2::date[], $3::int[], $4::text[])
     ON CONFLICT (device_id, day) DO UPDATE SET pieces = excluded.pieces WHERE report_days.generation = excluded.generation`,
    [days.map((d) => d.key.split(' ')[0]), days.map((d) => d.key.split(' ')[1]), days.map((d) => d.generation), days.map((d) => JSON.stringify(d.pieces.map(encode)))],
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
