// GET /internal/tokens/:id: lets the gateway learn whether a token is still active (revocation).
import { Router } from 'express';
import type { TrackerContext } from '../context.js';
import { findToken, touchToken } from './repository.js';

export function tokenStatusRoute(ctx: TrackerContext): Router {
  const router = Router();
  router.get('/internal/tokens/:id', async (req, res) => {
    const token = await findToken(ctx.db, req.params.id);
    const active = token !== null && token.revokedAt === null;
    if (active) await touchToken(ctx.db, token.id);
    res.json({ id: req.params.id, active, accountId: token?.accountId ?? null });
  });
  return router;
}
