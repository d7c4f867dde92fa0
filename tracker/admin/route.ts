// POST /internal/admin: the operator CLI's way in while the tracker owns the embedded database.
import { Router, json } from 'express';
import { ApiError } from '../../shared/errors.js';
import type { TrackerContext } from '../context.js';
import { isVerbName, runVerb } from './verbs.js';

export function adminRoute(ctx: TrackerContext): Router {
  const router = Router();
  router.post('/internal/admin', json({ limit: '64kb' }), async (req, res) => {
    const { command, args } = (req.body ?? {}) as { command?: unknown; args?: unknown };
    if (typeof command !== 'string' || !isVerbName(command)) throw new ApiError('bad_request', 'unknown command');
    if (typeof args !== 'object' || args === null || Array.isArray(args)) throw new ApiError('bad_request', 'args must be an object');
    const result = await runVerb(ctx, command, args as Record<string, unknown>);
    req.log.info({ command }, 'admin command');
    res.json(result);
  });
  return router;
}
