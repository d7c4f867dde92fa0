// GET /api/public/v1/devices and /devices/{id}: the account's units with their last state.
import { Router } from 'express';
import { ApiError } from '../../shared/errors.js';
import type { TrackerContext } from '../context.js';
import { findDevice, type Device } from '../devices/repository.js';
import { DeviceListSnapshots } from './device-list-snapshots.js';
import { deviceJson } from './sql-json.js';
import { caller, requireScope } from './request.js';

/** The caller's device or a 404 (another account's device is never acknowledged to exist). */
export async function callerDevice(ctx: TrackerContext, accountId: string, id: string): Promise<Device> {
  const device = await findDevice(ctx.db, accountId, id);
  if (!device) throw new ApiError('not_found', `no device ${id}`);
  return device;
}

/** From this many devices on, an account's list is served from a snapshot (see DEVICE_LIST_SNAPSHOT_MS). */
const LARGE_LIST = 1000;

export function devicesRoutes(ctx: TrackerContext): Router {
  const router = Router();
  const snapshots = new DeviceListSnapshots(ctx.db, ctx.logger, { maxAgeMs: ctx.config.DEVICE_LIST_SNAPSHOT_MS, minDevices: LARGE_LIST, maxBytes: 64 * 1024 * 1024 });
  router.get('/api/public/v1/devices', requireScope('read'), async (_req, res) => {
    res.type('application/json').send(await snapshots.body(caller(res).accountId));
  });
  router.get('/api/public/v1/devices/:id', requireScope('read'), async (req, res) => {
    const json = await deviceJson(ctx.db, caller(res).accountId, req.params.id as string);
    if (!json) throw new ApiError('not_found', `no device ${req.params.id as string}`);
    res.type('application/json').send(json);
  });
  return router;
}
