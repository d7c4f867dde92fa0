// The trips, stops and summary reports: for the caller's units (those named by deviceId, else all),
// computed where the positions are stored (tracker/reports) and streamed a batch of units at a
// time as JSON, or as CSV for `Accept: text/csv`.
import type { Request, Response } from 'express';
import { ApiError } from '../../shared/errors.js';
import { isId } from '../../shared/ids.js';
import type { TrackerContext } from '../context.js';
import { checkRange, DEFAULT_RANGE_HOURS } from '../positions/range.js';
import { detect } from '../reports/detect.js';
import { rangePieces } from '../reports/day-cache.js';
import type { Piece } from '../reports/pieces.js';
import { csvRows, CSV_COLUMNS, jsonRows, type ReportKind, type ReportRow } from '../reports/render.js';
import { MAX_REPORT_DEVICES, ReportsQuery } from '../reports/schemas.js';
import { tripSettings } from '../reports/settings.js';
import { summarize } from '../reports/summary.js';
import type { Queryable } from '../storage/db.js';
import { drained } from './drained.js';
import type { Handlers } from './operations.js';
import { caller, parseQuery } from './request.js';

/** Units per batch: each batch's pieces are held whole, and units stream out batch by batch. */
const DEVICES_PER_QUERY = 50;
/** Batches read while one is written (PostgreSQL only: PGlite runs one query at a time). */
const READ_AHEAD = 2;

export function reportsHandlers(ctx: TrackerContext): Handlers {
  const handler = (kind: ReportKind) => (req: Request, res: Response) => report(ctx, kind, req, res);
  return { reportTrips: handler('trips'), reportStops: handler('stops'), reportSummary: handler('summary') };
}

async function report(ctx: TrackerContext, kind: ReportKind, req: Request, res: Response): Promise<void> {
  const { deviceId: named, ...rest } = req.query;
  const q = parseQuery(ReportsQuery.omit({ deviceId: true }), rest);
  const to = q.to ? new Date(q.to) : new Date();
  const from = q.from ? new Date(q.from) : new Date(to.getTime() - DEFAULT_RANGE_HOURS * 3_600_000);
  checkRange(from, to);
  const accountId = caller(res).accountId;
  const ids = await reportDevices(ctx.db, accountId, deviceIds(named));
  const settings = await tripSettings(ctx.db, accountId, ids);
  const csv = req.accepts(['application/json', 'text/csv']) === 'text/csv';

  const rowsOf = async (batch: string[]) => {
    const pieces = await rangePieces(ctx.reads, ctx.db, batch, from, to);
    const byDevice = new Map<string, Piece[]>(batch.map((id) => [id, []]));
    for (const p of pieces) byDevice.get(p.deviceId)!.push(p);
    return [...byDevice].flatMap(([id, mine]): ReportRow[] => {
      const found = detect(mine, settings.get(id)!);
      return kind === 'trips' ? found.trips : kind === 'stops' ? found.stops : summarize(id, mine, found, q.daily === 'true');
    });
  };

  // Batches are read ahead on PostgreSQL's pool (the database works on the next while this process
  // writes one); each is awaited in order, so units come out in id order.
  const batches: string[][] = [];
  for (let i = 0; i < ids.length || i === 0; i += DEVICES_PER_QUERY) batches.push(ids.slice(i, i + DEVICES_PER_QUERY));
  const ahead = ctx.db.kind === 'postgres' ? READ_AHEAD : 0;
  const pending: Promise<ReportRow[]>[] = [];
  const next = (): Promise<ReportRow[]> => {
    while (pending.length <= ahead && batches.length > 0) {
      const read = rowsOf(batches.shift()!);
      read.catch(() => undefined); // awaited below; a failure ends the answer then
      pending.push(read);
    }
    return pending.shift()!;
  };
  // The first batch is read before the status goes out, so a failing query is still a clean 500.
  let rows = await next();
  res.status(200).type(csv ? 'text/csv; charset=utf-8' : 'application/json');
  if (csv) res.setHeader('Content-Disposition', `attachment; filename="${kind}.csv"`);
  let first = true;
  const write = async (text: string): Promise<void> => {
    if (!res.write(text)) await drained(res);
  };
  await write(csv ? CSV_COLUMNS[kind].join(',') + '\r\n' : '{"data":[');
  for (;;) {
    if (res.destroyed) return;
    if (rows.length > 0) await write(csv ? csvRows(kind, rows) : jsonRows(kind, rows, first));
    first &&= rows.length === 0;
    if (pending.length === 0 && batches.length === 0) break;
    rows = await next();
  }
  res.end(csv ? '' : ']}');
}

/** deviceId as sent: absent, once or repeated. Anything but unit ids is a 400. */
function deviceIds(value: unknown): string[] | null {
  if (value === undefined) return null;
  const list = Array.isArray(value) ? value : [value];
  if (list.length > MAX_REPORT_DEVICES) throw new ApiError('bad_request', `invalid query parameter "deviceId": at most ${MAX_REPORT_DEVICES} units per call`);
  for (const id of list) {
    if (typeof id !== 'string' || !isId('dev', id)) throw new ApiError('bad_request', `invalid query parameter "deviceId": ${JSON.stringify(typeof id === 'string' ? id.slice(0, 64) : id)} is not a unit id`);
  }
  return [...new Set(list as string[])];
}

/** The units reported on, in id order: those named (each must be the caller's, else 404), else all. */
async function reportDevices(db: Queryable, accountId: string, named: string[] | null): Promise<string[]> {
  if (named === null) return (await db.query<{ id: string }>('SELECT id FROM devices WHERE account_id = $1 ORDER BY id', [accountId])).map((r) => r.id);
  const found = new Set((await db.query<{ id: string }>('SELECT id FROM devices WHERE account_id = $1 AND id = ANY($2::text[])', [accountId, named])).map((r) => r.id));
  const missing = named.find((id) => !found.has(id));
  if (missing) throw new ApiError('not_found', `no device ${missing}`);
  return [...named].sort();
}
