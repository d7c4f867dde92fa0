// listDevices and getDevice: the account's units with their last state.
import { ApiError } from '../../shared/errors.js';
import type { TrackerContext } from '../context.js';
import { findDevice, type Device } from '../devices/repository.js';
import { decodeIdCursor, idCursorOf, pageBody } from '../storage/paging.js';
import { DevicesQuery } from './device-schemas.js';
import { DeviceListSnapshots } from './device-list-snapshots.js';
import { deviceJson, devicesJsonPage } from './sql-json.js';
import type { Handlers } from './operations.js';
import { caller, parseQuery } from './request.js';

/** The caller's device or a 404 (another account's device is never acknowledged to exist). */
export async function callerDevice(ctx: TrackerContext, accountId: string, id: string): Promise<Device> {
  const device = await findDevice(ctx.db, accountId, id);
  if (!device) throw new ApiError('not_found', `no device ${id}`);
  return device;
}

/** From this many devices on, an account's list is served from a snapshot (see DEVICE_LIST_SNAPSHOT_MS). */
const LARGE_LIST = 1000;

export function devicesHandlers(ctx: TrackerContext): Handlers {
  const snapshots = new DeviceListSnapshots(ctx.reads, ctx.logger, { maxAgeMs: ctx.config.DEVICE_LIST_SNAPSHOT_MS, minDevices: LARGE_LIST, maxBytes: 64 * 1024 * 1024 });
  return {
    async listDevices(req, res) {
      const { accountId } = caller(res);
      const q = parseQuery(DevicesQuery, req.query);
      // Without `limit`, the whole list in one answer, as before paging existed.
      if (q.limit === undefined) {
        if (q.cursor !== undefined) throw new ApiError('bad_request', 'invalid query parameter "cursor": goes with "limit"');
        res.type('application/json').send(await snapshots.body(accountId));
        return;
      }
      // Keyset by id: a walk sees every unit that existed throughout once, however many are added meanwhile.
      const rows = await devicesJsonPage(ctx.reads, accountId, decodeIdCursor(q.cursor), q.limit + 1);
      res.json(pageBody(rows, q.limit, true, idCursorOf, (r) => JSON.parse(r.json) as unknown));
    },
    async getDevice(req, res) {
      const json = await deviceJson(ctx.db, caller(res).accountId, req.params.id as string);
      if (!json) throw new ApiError('not_found', `no device ${req.params.id as string}`);
      res.type('application/json').send(json);
    },
  };
}
