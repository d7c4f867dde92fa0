// GET /api/public/v1/alerts: the account's alerts, newest first, open ones by default.
import { Router } from 'express';
import type { TrackerContext } from '../context.js';
import { listAlerts } from '../alerts/repository.js';
import { decodeCursor, encodeCursor, isIsoTime } from './paging.js';
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
    const more = rows.length > limit;
    const page = more ? rows.slice(0, limit) : rows;
    const last = page.at(-1);
    const body: { data: unknown[]; nextCursor?: string | null } = { data: page.map(presentAlert) };
    if (q.limit !== undefined || more) body.nextCursor = more && last ? encodeCursor({ t: last.createdAt.toISOString(), id: last.id }) : null;
    res.json(body);
  });
  return router;
}
