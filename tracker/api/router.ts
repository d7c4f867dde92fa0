// The public API as the tracker serves it behind the gateway.
import { Router } from 'express';
import type { TrackerContext } from '../context.js';
import { alertsRoutes } from './alerts.js';
import { devicesRoutes } from './devices.js';
import { locateRoutes } from './locate.js';
import { positionsRoutes } from './positions.js';
import { recordsRoutes } from './records.js';

export function publicApi(ctx: TrackerContext): Router {
  const router = Router();
  router.use(devicesRoutes(ctx), positionsRoutes(ctx), alertsRoutes(ctx), locateRoutes(ctx), recordsRoutes(ctx));
  return router;
}
