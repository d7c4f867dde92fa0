// The public API as the tracker serves it behind the gateway: every operation of the route
// catalogue, each bound to its handler by operationId.
import type { Router } from 'express';
import { OPERATIONS } from '../../shared/catalogue.js';
import type { TrackerContext } from '../context.js';
import { inboundHandler } from '../inbound/route.js';
import { alertsHandlers } from './alerts.js';
import { commandsHandlers } from './commands.js';
import { rulesHandlers } from './custom-rules.js';
import { deviceWritesHandlers } from './device-writes.js';
import { devicesHandlers } from './devices.js';
import { driversHandlers } from './drivers.js';
import { eventsHandlers } from './events.js';
import { geofencesHandlers } from './geofences.js';
import { locateHandlers } from './locate.js';
import { bindOperations, type Handlers } from './operations.js';
import { positionsHandlers } from './positions.js';
import { recordsHandlers } from './records.js';
import { reportsHandlers } from './reports.js';
import { settingsHandlers } from './settings.js';

/** `edges`: the handlers other edges serve for operations of the catalogue (the live feed's stream). */
export function publicApi(ctx: TrackerContext, edges: Handlers): Router {
  return bindOperations(OPERATIONS, {
    ...devicesHandlers(ctx),
    ...deviceWritesHandlers(ctx),
    ...positionsHandlers(ctx),
    ...reportsHandlers(ctx),
    ...alertsHandlers(ctx),
    ...locateHandlers(ctx),
    ...commandsHandlers(ctx),
    ...eventsHandlers(ctx),
    ...geofencesHandlers(ctx),
    ...driversHandlers(ctx),
    ...rulesHandlers(ctx),
    ...settingsHandlers(ctx),
    ...recordsHandlers(ctx),
    receiveInboundCall: inboundHandler(ctx),
    ...edges,
  });
}
