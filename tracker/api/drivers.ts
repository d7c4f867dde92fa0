// /api/public/v1/drivers: list and read (read scope), create, replace and delete (write scope);
// /api/public/v1/devices/{id}/driver: which driver drives a unit (read), and assigning one (write).
import { Router } from 'express';
import type { TrackerContext } from '../context.js';
import { assignDriver, createDriver, deleteDriver, deviceDriver, findDriver, listDrivers, replaceDriver } from '../drivers/repository.js';
import { collectionRoutes } from './collection.js';
import { callerDevice } from './devices.js';
import { DriverAssignmentInput, DriverInput } from './metadata-schemas.js';
import { presentDriver } from './present.js';
import { caller, jsonBody, parseBody, requireScope } from './request.js';

export function driversRoutes(ctx: TrackerContext): Router {
  const router = Router();
  router.use(
    collectionRoutes(ctx, {
      path: '/api/public/v1/drivers',
      noun: 'driver',
      input: DriverInput,
      present: presentDriver,
      list: listDrivers,
      find: findDriver,
      create: createDriver,
      replace: replaceDriver,
      remove: deleteDriver,
    }),
  );
  router.get('/api/public/v1/devices/:id/driver', requireScope('read'), async (req, res) => {
    const device = await callerDevice(ctx, caller(res).accountId, req.params.id as string);
    res.json({ deviceId: device.id, driverId: await deviceDriver(ctx.db, device.id) });
  });
  router.put('/api/public/v1/devices/:id/driver', requireScope('write'), jsonBody(), async (req, res) => {
    const { accountId } = caller(res);
    const device = await callerDevice(ctx, accountId, req.params.id as string);
    const { driverId } = parseBody(DriverAssignmentInput, req.body);
    await assignDriver(ctx.db, accountId, device.id, driverId);
    res.json({ deviceId: device.id, driverId });
  });
  return router;
}
