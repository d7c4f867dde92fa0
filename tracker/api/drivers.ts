// The account's drivers (list, read, create, replace, delete), which driver drives a unit, and
// assigning one.
import type { TrackerContext } from '../context.js';
import { assignDriver, createDriver, deleteDriver, deviceDriver, findDriver, listDrivers, replaceDriver } from '../drivers/repository.js';
import { DriverAssignmentInput, DriverInput } from '../drivers/schemas.js';
import { collectionHandlers } from './collection.js';
import { callerDevice } from './devices.js';
import type { Handlers } from './operations.js';
import { presentDriver } from './present.js';
import { caller, jsonBody, parseBody } from './request.js';

export function driversHandlers(ctx: TrackerContext): Handlers {
  return {
    ...collectionHandlers(ctx, {
      noun: 'driver',
      input: DriverInput,
      present: presentDriver,
      list: listDrivers,
      find: findDriver,
      create: createDriver,
      replace: replaceDriver,
      remove: deleteDriver,
    }),
    async getDeviceDriver(req, res) {
      const device = await callerDevice(ctx, caller(res).accountId, req.params.id as string);
      res.json({ deviceId: device.id, driverId: await deviceDriver(ctx.db, device.id) });
    },
    assignDeviceDriver: [
      jsonBody(),
      async (req, res) => {
        const { accountId } = caller(res);
        const device = await callerDevice(ctx, accountId, req.params.id as string);
        const { driverId } = parseBody(DriverAssignmentInput, req.body);
        await assignDriver(ctx.db, accountId, device.id, driverId);
        res.json({ deviceId: device.id, driverId });
      },
    ],
  };
}
