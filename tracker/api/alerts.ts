// listAlerts: the account's alerts, newest first, open ones by default.
// acknowledgeAlert: open → acknowledged, idempotent.
import { ApiError } from '../../shared/errors.js';
import { acknowledgeAlert, listAlerts } from '../alerts/repository.js';
import type { TrackerContext } from '../context.js';
import { DEFAULT_LIST_LIMIT, decodeNumberedCursor, pageBody } from '../storage/paging.js';
import type { Handlers } from './operations.js';
import { presentAlert } from './present.js';
import { caller, parseQuery } from './request.js';
import { AlertsQuery } from './schemas.js';

export function alertsHandlers(ctx: TrackerContext): Handlers {
  return {
    async listAlerts(req, res) {
      const q = parseQuery(AlertsQuery, req.query);
      const before = decodeNumberedCursor(q.cursor);
      const limit = q.limit ?? DEFAULT_LIST_LIMIT;
      const rows = await listAlerts(ctx.db, { accountId: caller(res).accountId, status: q.status, since: q.since ? new Date(q.since) : null, before, limit: limit + 1 });
      res.json(pageBody(rows, limit, q.limit !== undefined, (a) => ({ t: a.createdAt.toISOString(), id: a.id }), presentAlert));
    },
    async acknowledgeAlert(req, res) {
      const id = req.params.id as string;
      // Alert ids are integers; anything else names no alert.
      const alert = /^[1-9][0-9]{0,14}$/.test(id) ? await acknowledgeAlert(ctx.db, caller(res).accountId, Number(id)) : null;
      if (!alert) throw new ApiError('not_found', `no alert ${id}`);
      res.json(presentAlert(alert));
    },
  };
}
