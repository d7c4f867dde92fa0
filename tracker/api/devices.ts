// GET /api/public/v1/devices and /devices/{id}: the account's units with their last state.
import { Router } from 'express';
import { ApiError } from '../../shared/errors.js';
import type { TrackerContext } from '../context.js';
import { findDevice, type Device } from '../devices/repository.js';
import { deviceJson, devicesJson } from './sql-json.js';
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
    res.type('application/json').send(`{"data":${await devicesJson(ctx.db, caller(res).accountId)}}`);
  });
  router.get('/api/public/v1/devices/:id', requireScope('read'), async (req, res) => {
    const json = await deviceJson(ctx.db, caller(res).accountId, req.params.id as string);
    if (!json) throw new ApiError('not_found', `no device ${req.params.id as string}`);
    res.type('application/json').send(json);
  });
  return router;
}
