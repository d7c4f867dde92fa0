// listPositions: a unit's history, oldest first. The rows come out of the database
// as binary COPY and are written as JSON as they arrive, with backpressure, in constant memory.
import type { Response } from 'express';
import type { TrackerContext } from '../context.js';
import { checkRange, DEFAULT_RANGE_HOURS } from '../positions/range.js';
import { historyQuery } from '../positions/repository.js';
import type { Db } from '../storage/db.js';
import { decodeCursor, encodeCursor, isCursorTime } from '../storage/paging.js';
import { callerDevice } from './devices.js';
import { drained } from './drained.js';
import type { Handlers } from './operations.js';
import { HISTORY_COLUMNS, PositionsJson, type HistoryShape } from './positions-json.js';
import { caller, parseQuery } from './request.js';
import { PositionsQuery } from './schemas.js';

/**
 * Without `limit`, PGlite, which hands a COPY over whole, reads the range in keyset batches of this
 * many rows (one COPY each) so as never to hold more than one batch; PostgreSQL streams one COPY.
 */
const PGLITE_BATCH_ROWS = 100_000;
const isCursor = (v: Record<string, unknown>): v is { t: string } => isCursorTime(v.t);

export function positionsHandlers(ctx: TrackerContext): Handlers {
  return {
    async listPositions(req, res) {
      const q = parseQuery(PositionsQuery, req.query);
      const to = q.to ? new Date(q.to) : new Date();
      const from = q.from ? new Date(q.from) : new Date(to.getTime() - DEFAULT_RANGE_HOURS * 3_600_000);
      checkRange(from, to);
      const after = q.cursor ? decodeCursor(q.cursor, isCursor).t : null;
      const device = await callerDevice(ctx, caller(res).accountId, req.params.id as string);
      const query = (since: string | null, limit: number | null) => historyQuery(HISTORY_COLUMNS[q.fields], device.id, from, to, since, limit);
      if (q.limit === undefined) return streamHistory(res, ctx.reads, q.fields, query, after);

      const json = new PositionsJson(q.fields);
      const parts: Buffer[] = [];
      let more = false;
      const { sql, params } = query(after, q.limit + 1);
      for await (const tuples of ctx.reads.copyBinary(sql, params)) {
        const written = json.write(tuples, q.limit);
        parts.push(written.json);
        more ||= written.more;
      }
      const nextCursor = more ? encodeCursor({ t: json.lastTime() }) : null;
      res.type('application/json').send(Buffer.concat([Buffer.from('{"data":['), ...parts, Buffer.from(`],"nextCursor":${JSON.stringify(nextCursor)}}`)]));
    },
  };
}

type Query = (since: string | null, limit: number | null) => { sql: string; params: string[] };

/** Writes `{"data":[…]}` batch by batch; a client that goes away ends the COPY under way. */
async function streamHistory(res: Response, db: Db, shape: HistoryShape, query: Query, after: string | null): Promise<void> {
  res.status(200).type('application/json');
  res.write('{"data":[');
  const json = new PositionsJson(shape);
  const batch = db.kind === 'pglite' ? PGLITE_BATCH_ROWS : null;
  let since = after;
  for (;;) {
    const before = json.rows;
    const { sql, params } = query(since, batch);
    for await (const tuples of db.copyBinary(sql, params)) {
      if (res.destroyed) return;
      if (!res.write(json.write(tuples).json)) await drained(res);
    }
    if (batch === null || json.rows - before < batch) break;
    since = json.lastTime();
  }
  res.end(']}');
}
