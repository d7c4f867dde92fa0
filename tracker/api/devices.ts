// GET /api/public/v1/devices and /devices/{id}: the account's units with their last state.
import { Router } from 'express';
import { ApiError } from '../../shared/errors.js';
import type { TrackerContext } from '../context.js';
import { findDevice, listDevices, type Device } from '../devices/repository.js';
import { presentDevice } from './present.js';
import { caller, requireScope } from './request.js';

/** The caller's device or a 404 (another account's device is never acknowledged to exist). */
export async function callerDevice(ctx: TrackerContext, accountId: string, id: string): Promise<Device> {
  const device = await findDevice(ctx.db, accountId, id);
  if (!device) throw new ApiError('not_found', `no device ${id}`);
  return device;
}

export function devicesRoutes(ctx: TrackerContext): Router {
  const router = Router();
  router.get('/api/public/v1/devices', requireScope('read'), async (_req, res) => {
    const devices = await listDevices(ctx.db, caller(res).accountId);
    res.json({ data: devices.map(presentDevice) });
  });
  router.get('/api/public/v1/devices/:id', requireScope('read'), async (req, res) => {
    res.json(presentDevice(await callerDevice(ctx, caller(res).accountId, req.params.id as string)));
  });
  return router;
}
