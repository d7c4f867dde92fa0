// listEvents: the account's events, newest first, each with its position and the alert it opened.
import type { TrackerContext } from '../context.js';
import { listEvents } from '../events/repository.js';
import { DEFAULT_LIST_LIMIT, decodeNumberedCursor, pageBody } from '../storage/paging.js';
import { callerDevice } from './devices.js';
import { EventsQuery } from './metadata-schemas.js';
import type { Handlers } from './operations.js';
import { presentEvent } from '../events/present.js';
import { caller, parseQuery } from './request.js';

export function eventsHandlers(ctx: TrackerContext): Handlers {
  return {
    async listEvents(req, res) {
      const q = parseQuery(EventsQuery, req.query);
      const { accountId } = caller(res);
      // Another account's unit is a 404, as everywhere.
      const deviceId = q.deviceId !== undefined ? (await callerDevice(ctx, accountId, q.deviceId)).id : null;
      const before = decodeNumberedCursor(q.cursor);
      const limit = q.limit ?? DEFAULT_LIST_LIMIT;
      const rows = await listEvents(ctx.reads, { accountId, since: q.since ? new Date(q.since) : null, type: q.type ?? null, deviceId, before, limit: limit + 1 });
      res.json(pageBody(rows, limit, q.limit !== undefined, (e) => ({ t: e.createdAt, id: e.id }), presentEvent));
    },
  };
}
