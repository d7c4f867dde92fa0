// GET /api/public/v1/devices/{id}/positions: history, oldest first, streamed from a cursor.
import { Router } from 'express';
import { ApiError } from '../../shared/errors.js';
import type { TrackerContext } from '../context.js';
import { historyQuery } from '../positions/repository.js';
import { callerDevice } from './devices.js';
import { streamLines } from './json-stream.js';
import { decodeCursor, encodeCursor, isIsoTime } from './paging.js';
import { caller, parseQuery, requireScope } from './request.js';
import { isoSql, POSITION_JSON } from './sql-json.js';
import { DEFAULT_RANGE_HOURS, MAX_RANGE_DAYS, PositionsQuery } from './schemas.js';

interface JsonRow {
  j: string;
  t: string;
}

export function positionsRoutes(ctx: TrackerContext): Router {
  const router = Router();
  router.get('/api/public/v1/devices/:id/positions', requireScope('read'), async (req, res) => {
    const q = parseQuery(PositionsQuery, req.query);
    const to = q.to ? new Date(q.to) : new Date();
    const from = q.from ? new Date(q.from) : new Date(to.getTime() - DEFAULT_RANGE_HOURS * 3_600_000);
    if (from > to) throw new ApiError('bad_request', '"from" must not be later than "to"');
    if (to.getTime() - from.getTime() > MAX_RANGE_DAYS * 86_400_000) {
      throw new ApiError('bad_request', `the range from "from" to "to" may span at most ${MAX_RANGE_DAYS} days`);
    }
    const after = q.cursor ? new Date(decodeCursor(q.cursor, (v): v is { t: string } => isIsoTime(v.t)).t) : null;
    const device = await callerDevice(ctx, caller(res).accountId, req.params.id as string);

    if (q.limit === undefined) {
      const { sql, params } = historyQuery(POSITION_JSON, device.id, from, to, after, null);
      return streamLines(res, ctx.db.copyLines(sql, params));
    }
    const { sql, params } = historyQuery(`${POSITION_JSON} AS j, ${isoSql('device_time')} AS t`, device.id, from, to, after, q.limit + 1);
    const rows = await ctx.db.query<JsonRow>(sql, params);
    const more = rows.length > q.limit;
    const pageRows = more ? rows.slice(0, q.limit) : rows;
    const nextCursor = more ? encodeCursor({ t: pageRows.at(-1)!.t }) : null;
    res.type('application/json').send(`{"data":[${pageRows.map((r) => r.j).join(',')}],"nextCursor":${JSON.stringify(nextCursor)}}`);
  });
  return router;
}
