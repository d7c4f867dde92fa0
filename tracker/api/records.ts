// The records inbound webhooks created in the caller's account (incidents, expenses, work orders,
// unit notes), newest first, filtered by unit and time, paged like alerts.
import { ApiError } from '../../shared/errors.js';
import type { TrackerContext } from '../context.js';
import { RECORD_KINDS, type RecordKind } from '../records/kinds.js';
import { listRecords, type StoredRecord } from '../records/repository.js';
import { RecordsQuery } from '../records/schemas.js';
import { decodeCreatedCursor, DEFAULT_LIST_LIMIT, pageBody } from '../storage/paging.js';
import type { Handlers } from './operations.js';
import { caller, parseQuery } from './request.js';

const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : v);

/** A record as the read API shows it: id and unit first, the kind's fields, then time, source, extras. */
export function presentRecord(kind: RecordKind, r: StoredRecord) {
  const own = Object.fromEntries(kind.fields.map((f) => [f.name, f.type === 'time' ? iso(r.values[f.name]) : r.values[f.name]]));
  return { id: r.id, deviceId: r.deviceId, ...own, time: r.time.toISOString(), receivedAt: r.receivedAt.toISOString(), webhookId: r.webhookId, extra: r.extra };
}

export function recordsHandlers(ctx: TrackerContext): Handlers {
  const handlers: Handlers = {};
  for (const kind of RECORD_KINDS) {
    handlers[kind.operationId] = async (req, res) => {
      const q = parseQuery(RecordsQuery, req.query);
      const from = q.from ? new Date(q.from) : null;
      const to = q.to ? new Date(q.to) : null;
      if (from && to && from > to) throw new ApiError('bad_request', '"from" must not be later than "to"');
      const cursor = decodeCreatedCursor(q.cursor);
      const before = cursor && { time: cursor.createdAt, id: cursor.id };
      const limit = q.limit ?? DEFAULT_LIST_LIMIT;
      const rows = await listRecords(ctx.db, kind, { accountId: caller(res).accountId, deviceId: q.deviceId ?? null, from, to, before, limit: limit + 1 });
      res.json(pageBody(rows, limit, q.limit !== undefined, (r) => ({ t: r.time.toISOString(), id: r.id }), (r) => presentRecord(kind, r)));
    };
  }
  return handlers;
}
