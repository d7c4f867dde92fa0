// The public API as the tracker serves it behind the gateway.
import { Router } from 'express';
import type { TrackerContext } from '../context.js';
import { alertsRoutes } from './alerts.js';
import { devicesRoutes } from './devices.js';
import { driversRoutes } from './drivers.js';
import { eventsRoutes } from './events.js';
import { geofencesRoutes } from './geofences.js';
import { locateRoutes } from './locate.js';
import { positionsRoutes } from './positions.js';
import { recordsRoutes } from './records.js';
import { rulesRoutes } from './rules.js';
import { settingsRoutes } from './settings.js';

export function publicApi(ctx: TrackerContext): Router {
  const router = Router();
  router.use(devicesRoutes(ctx), positionsRoutes(ctx), alertsRoutes(ctx), locateRoutes(ctx), eventsRoutes(ctx));
  router.use(geofencesRoutes(ctx), driversRoutes(ctx), rulesRoutes(ctx), settingsRoutes(ctx), recordsRoutes(ctx));
  return router;
}
