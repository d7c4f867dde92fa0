// listDevices and getDevice: the account's units with their last state.
import { ApiError } from '../../shared/errors.js';
import type { TrackerContext } from '../context.js';
import { findDevice, type Device } from '../devices/repository.js';
import { DeviceListSnapshots } from './device-list-snapshots.js';
import { deviceJson } from './sql-json.js';
import type { Handlers } from './operations.js';
import { caller } from './request.js';

/** The caller's device or a 404 (another account's device is never acknowledged to exist). */
export async function callerDevice(ctx: TrackerContext, accountId: string, id: string): Promise<Device> {
  const device = await findDevice(ctx.db, accountId, id);
  if (!device) throw new ApiError('not_found', `no device ${id}`);
  return device;
}

/** From this many devices on, an account's list is served from a snapshot (see DEVICE_LIST_SNAPSHOT_MS). */
const LARGE_LIST = 1000;

export function devicesHandlers(ctx: TrackerContext): Handlers {
  const snapshots = new DeviceListSnapshots(ctx.db, ctx.logger, { maxAgeMs: ctx.config.DEVICE_LIST_SNAPSHOT_MS, minDevices: LARGE_LIST, maxBytes: 64 * 1024 * 1024 });
  return {
    async listDevices(_req, res) {
        res.type('application/json').send(await snapshots.body(caller(res).accountId));
      },
      async getDevice(req, res) {
        const json = await deviceJson(ctx.db, caller(res).accountId, req.params.id as string);
        if (!json) throw new ApiError('not_found', `no device ${req.params.id as string}`);
        res.type('application/json').send(json);
      },
    };
  }
