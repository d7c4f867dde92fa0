// Provisioning units through the API: create one or many, change, remove. Identifiers are unique
// across the platform; a taken one is a 409 that names the identifier and nothing of who holds it.
import { ApiError } from '../../shared/errors.js';
import type { TrackerContext } from '../context.js';
import { addDevice, addDevices, conflict, updateDevice } from '../devices/repository.js';
import { disconnectDevice, removeDevice } from '../devices/removal.js';
import { callerDevice } from './devices.js';
import { DeleteDeviceQuery, DeviceInput, DevicePatch, DevicesBulkEnvelope } from './device-schemas.js';
import type { Handlers } from './operations.js';
import { caller, jsonBody, parseBody, parseQuery } from './request.js';
import { deviceJson, devicesJsonByIds } from './sql-json.js';

type ItemResult = { index: number; status: 201; device: unknown } | { index: number; status: 400 | 409; error: string; code: 'bad_request' | 'conflict' };

/** A device as the API shows it, by id, as text. */
async function shown(ctx: TrackerContext, accountId: string, id: string): Promise<string> {
  const json = await deviceJson(ctx.db, accountId, id);
  if (!json) throw new ApiError('not_found', `no device ${id}`);
  return json;
}

/** Each item validated on its own; valid ones created in one statement; per-item results in request order. */
async function createMany(ctx: TrackerContext, accountId: string, items: unknown[]): Promise<ItemResult[]> {
  const results: (ItemResult | null)[] = items.map(() => null);
  const valid: { index: number; input: { name: string; imei: string; plate: string } }[] = [];
  const firstIndex = new Map<string, number>();
  items.forEach((item, index) => {
    try {
      const input = parseBody(DeviceInput, item);
      const earlier = firstIndex.get(input.imei);
      if (earlier !== undefined) {
        results[index] = { index, status: 409, error: `identifier ${input.imei} is repeated in this request (item ${earlier})`, code: 'conflict' };
        return;
      }
      firstIndex.set(input.imei, index);
      valid.push({ index, input });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      results[index] = { index, status: 400, error: err.message.replace(/^invalid body/, 'invalid item'), code: 'bad_request' };
    }
  });
  const added = await addDevices(ctx.db, accountId, valid.map((v) => v.input));
  const json = await devicesJsonByIds(ctx.db, accountId, [...added.values()].map((d) => d.id));
  for (const { index, input } of valid) {
    const device = added.get(input.imei);
    results[index] = device ? { index, status: 201, device: JSON.parse(json.get(device.id)!) as unknown } : { index, status: 409, error: conflict(input.imei).message, code: 'conflict' };
  }
  return results as ItemResult[];
}

export function deviceWritesHandlers(ctx: TrackerContext): Handlers {
  return {
    createDevice: [
      jsonBody(),
      async (req, res) => {
        const { accountId } = caller(res);
        const input = parseBody(DeviceInput, req.body);
        const device = await addDevice(ctx.db, { accountId, ...input });
        res.status(201).type('application/json').send(await shown(ctx, accountId, device.id));
      },
    ],
    createDevices: [
      jsonBody(),
      async (req, res) => {
        const { devices } = parseBody(DevicesBulkEnvelope, req.body);
        const results = await createMany(ctx, caller(res).accountId, devices);
        const created = results.filter((r) => r.status === 201).length;
        res.json({ created, failed: results.length - created, results });
      },
    ],
    updateDevice: [
      jsonBody(),
      async (req, res) => {
        const { accountId } = caller(res);
        const device = await callerDevice(ctx, accountId, req.params.id as string);
        const patch = parseBody(DevicePatch, req.body);
        await ctx.db.transaction(async (tx) => {
          if (!(await updateDevice(tx, accountId, device.id, patch))) throw new ApiError('not_found', `no device ${device.id}`);
          if (patch.imei !== undefined && patch.imei !== device.imei) await disconnectDevice(tx, device.id);
        });
        res.type('application/json').send(await shown(ctx, accountId, device.id));
      },
    ],
    async deleteDevice(req, res) {
      const { positions } = parseQuery(DeleteDeviceQuery, req.query);
      const device = await callerDevice(ctx, caller(res).accountId, req.params.id as string);
      const removal = await removeDevice(ctx.db, device, positions);
      if (!removal) throw new ApiError('not_found', `no device ${device.id}`);
      res.json({ ...removal, removed: true });
    },
  };
}
