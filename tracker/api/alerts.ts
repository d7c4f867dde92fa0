// GET /api/public/v1/alerts: the account's alerts, newest first, open ones by default.
import { Router } from 'express';
import type { TrackerContext } from '../context.js';
import { listAlerts } from '../alerts/repository.js';
import { decodeCursor, isIsoTime, pageBody } from './paging.js';
import { presentAlert } from './present.js';
import { caller, parseQuery, requireScope } from './request.js';
import { AlertsQuery } from './schemas.js';

const DEFAULT_LIMIT = 1000;

export function alertsRoutes(ctx: TrackerContext): Router {
  const router = Router();
  router.get('/api/public/v1/alerts', requireScope('read'), async (req, res) => {
    const q = parseQuery(AlertsQuery, req.query);
    const before = q.cursor
      ? (({ t, id }) => ({ createdAt: new Date(t), id }))(decodeCursor(q.cursor, (v): v is { t: string; id: number } => isIsoTime(v.t) && Number.isInteger(v.id)))
      : null;
    const limit = q.limit ?? DEFAULT_LIMIT;
    const rows = await listAlerts(ctx.db, { accountId: caller(res).accountId, status: q.status, since: q.since ? new Date(q.since) : null, before, limit: limit + 1 });
    res.json(pageBody(rows, limit, q.limit !== undefined, presentAlert, (a) => ({ t: a.createdAt.toISOString(), id: a.id })));
  });
  return router;
}
