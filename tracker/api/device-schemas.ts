// Shapes of the devices' write operations and of the devices list's query: they validate requests,
// shape responses and feed the OpenAPI document. A device's own fields follow the same rules as in
// the operator CLI and the dashboard (devices/fields.ts).
import { z } from 'zod';
import { deviceName, imei, plate } from '../devices/fields.js';
import { POSITIONS_CHOICES } from '../devices/removal.js';
import { paging } from '../storage/paging.js';
import { Device } from './schemas.js';

/** Devices one bulk call may create. */
export const MAX_BULK_DEVICES = 500;

const fields = {
  name: deviceName.meta({ description: '1 to 200 characters' }),
  imei: imei.meta({ description: 'Device identifier (IMEI or the protocol id): 5 to 20 digits, unique across the platform' }),
  plate: plate.meta({ description: 'Vehicle plate, at most 32 characters' }),
};

export const DeviceInput = z
  .strictObject({ name: fields.name, imei: fields.imei, plate: fields.plate.default('') })
  .meta({ id: 'DeviceInput', description: 'A unit to register' });

export const DevicePatch = z
  .strictObject({ name: fields.name.optional(), imei: fields.imei.optional(), plate: fields.plate.optional() })
  .refine((p) => p.name !== undefined || p.imei !== undefined || p.plate !== undefined, 'give at least one of name, imei, plate')
  .meta({
    id: 'DevicePatch',
    description: 'Fields left out are unchanged. A new `imei` moves the unit (its history, settings and links) to other hardware: a connection of the old identifier is closed.',
  });

export const DevicesBulkInput = z
  .strictObject({ devices: z.array(DeviceInput).min(1).max(MAX_BULK_DEVICES).meta({ description: `1 to ${MAX_BULK_DEVICES} units; each is judged on its own` }) })
  .meta({ id: 'DevicesBulkInput' });

/** The bulk body as it is parsed: the list's bounds first; each item is then validated on its own. */
export const DevicesBulkEnvelope = z.strictObject({
  devices: z.array(z.unknown(), { error: 'must be an array of devices' }).min(1, 'must list at least one device').max(MAX_BULK_DEVICES, `must list at most ${MAX_BULK_DEVICES} devices`),
});

export const DevicesBulkResult = z
  .object({
    created: z.number().int().meta({ description: 'How many units were created' }),
    failed: z.number().int().meta({ description: 'How many items were refused' }),
    results: z.array(
      z
        .object({
          index: z.number().int().meta({ description: 'Position of the item in the request, from 0' }),
          status: z.union([z.literal(201), z.literal(400), z.literal(409)]).meta({ description: '201 created; 400 invalid item; 409 identifier already registered, or repeated in this request' }),
          device: Device.optional().meta({ description: 'The unit created (status 201)' }),
          error: z.string().optional().meta({ description: 'Why the item was refused (400, 409)' }),
          code: z.enum(['bad_request', 'conflict']).optional(),
        })
        .meta({ id: 'DevicesBulkItemResult' }),
    ).meta({ description: 'One result per item, in request order' }),
  })
  .meta({ id: 'DevicesBulkResult' });

export const DeviceRemoved = z
  .object({
    id: z.string(),
    removed: z.literal(true),
    positions: z.enum(['kept', 'removed']).meta({ description: 'What became of the position history' }),
    positionsRemoved: z.number().int().meta({ description: 'Positions deleted (0 when kept)' }),
  })
  .meta({ id: 'DeviceRemoved' });

export const DevicesQuery = z.object(paging);

export const DeleteDeviceQuery = z.object({
  positions: z.enum(POSITIONS_CHOICES).default('keep').meta({
    description: '`keep` (default): the position history stays in storage until the position retention drops it; `remove`: it is deleted with the unit',
  }),
});
