// The device edit form, in sections. Each section names its fields, reads their current values,
// validates what was submitted and saves it; the page validates every section first and then
// saves them all in one transaction. The settings the event rules use are checked by the API's
// own field schemas, so the form and the API refuse the same values.
import { z } from 'zod';
import { ApiError } from '../../../shared/errors.js';
import { deviceName, plate } from '../../devices/fields.js';
import { updateDevice, type Device } from '../../devices/repository.js';
import { DeviceSettingsPatch, Maintenance } from '../../devices/settings-schemas.js';
import { deviceSettings, writeDeviceSettings } from '../../devices/settings.js';
import { deviceDriver, findDriver, listDrivers, MAX_DRIVERS_PER_ACCOUNT, writeDriverAssignment } from '../../drivers/repository.js';
import type { Queryable } from '../../storage/db.js';
import { formNumber, type FieldSpec } from '../forms.js';

export interface DeviceFormSection {
  legend: string;
  /** The fields (choices of a select may depend on the account). */
  fields(db: Queryable, device: Device): Promise<readonly FieldSpec[]>;
  /** The values the form shows before anything is submitted. */
  values(db: Queryable, device: Device): Promise<Record<string, string>>;
  /** Checks this section's submitted fields; on success, the save to run in the transaction. */
  parse(submitted: Record<string, string>): { ok: true; save: (tx: Queryable, device: Device) => Promise<void> } | { ok: false; error: z.ZodError };
}

interface SectionDefinition<T> {
  legend: string;
  fields: readonly FieldSpec[] | ((db: Queryable, device: Device) => Promise<readonly FieldSpec[]>);
  values(db: Queryable, device: Device): Promise<Record<string, string>>;
  schema: z.ZodType<T>;
  save(tx: Queryable, device: Device, values: T): Promise<void>;
}

export function section<T>(def: SectionDefinition<T>): DeviceFormSection {
  const fields = def.fields;
  return {
    legend: def.legend,
    fields: typeof fields === 'function' ? fields : async () => fields,
    values: def.values,
    parse(submitted) {
      const parsed = def.schema.safeParse(submitted);
      if (!parsed.success) return { ok: false, error: parsed.error };
      return { ok: true, save: (tx, device) => def.save(tx, device, parsed.data) };
    },
  };
}

/** A number as a form shows it: blank for a setting that is not set. */
const shown = (n: number | null | undefined) => (n === null || n === undefined ? '' : String(n));
const numberField = (name: string, label: string, hint?: string): FieldSpec => ({ name, label, type: 'text', inputmode: 'decimal', autocomplete: 'off', maxlength: 20, ...(hint ? { hint } : {}) });

const identity = section({
  legend: 'Name and plate',
  fields: [
    { name: 'name', label: 'Name', required: true, maxlength: 200, hint: 'How the device appears in lists, alerts and the API.' },
    { name: 'plate', label: 'Plate', maxlength: 32, autocomplete: 'off' },
  ],
  values: async (_db, device) => ({ name: device.name, plate: device.plate }),
  schema: z.object({ name: deviceName, plate: plate.default('') }),
  async save(tx, device, values) {
    await updateDevice(tx, device.accountId, device.id, values);
  },
});

const patch = DeviceSettingsPatch.shape;

const speed = section({
  legend: 'Speed limit',
  fields: [numberField('speedLimitKmh', 'Speed limit (km/h)', 'A speeding alert is raised above it. Leave empty for the account’s default (90 km/h unless changed through the API).')],
  values: async (db, device) => ({ speedLimitKmh: shown((await deviceSettings(db, device.id)).speedLimitKmh) }),
  schema: z.object({ speedLimitKmh: formNumber('speed limit', patch.speedLimitKmh) }),
  async save(tx, device, values) {
    await writeDeviceSettings(tx, device.id, values);
  },
});

const fuel = section({
  legend: 'Fuel',
  fields: [
    numberField('fuelTankLitres', 'Tank capacity (litres)', 'Turns readings in percent into litres.'),
    numberField('fuelLowLitres', 'Low fuel below (litres)'),
    numberField('fuelLowPercent', 'Low fuel below (% of the tank)', 'A fuel alert is raised when the level falls below either threshold. Leave both empty for no fuel alerts.'),
  ],
  async values(db, device) {
    const s = await deviceSettings(db, device.id);
    return { fuelTankLitres: shown(s.fuelTankLitres), fuelLowLitres: shown(s.fuelLowLitres), fuelLowPercent: shown(s.fuelLowPercent) };
  },
  schema: z.object({
    fuelTankLitres: formNumber('tank capacity', patch.fuelTankLitres),
    fuelLowLitres: formNumber('low fuel in litres', patch.fuelLowLitres),
    fuelLowPercent: formNumber('low fuel in percent', patch.fuelLowPercent),
  }),
  async save(tx, device, values) {
    await writeDeviceSettings(tx, device.id, values);
  },
});

const odometer = Maintenance.shape.odometer.unwrap().shape;
const engineHours = Maintenance.shape.engineHours.unwrap().shape;

/** A schedule from its two fields: no interval means no schedule. Left out of the form: unchanged. */
function schedule<T>(start: number | null | undefined, every: number | null | undefined, make: (start: number, every: number) => T): T | null | undefined {
  if (start === undefined && every === undefined) return undefined;
  return every === null || every === undefined ? null : make(start ?? 0, every);
}

/** A reading at the last service without an interval is a schedule left half-way: said, not dropped. */
const complete = (start: string, every: string) => (v: Record<string, unknown>) => !(typeof v[start] === 'number' && v[every] === null);
const intervalNeeded = (every: string, what: string) => ({
  path: [every],
  message: `${what} interval is needed for a schedule (or clear the reading at the last service)`,
  // Checked even when another field had a problem, so every message shows at once.
  when: () => true,
});

const maintenance = section({
  legend: 'Maintenance schedule',
  fields: [
    numberField('odometerStartKm', 'Odometer at the last service (km)', 'Maintenance is due each time the odometer passes this reading plus a whole number of intervals.'),
    numberField('odometerEveryKm', 'Service interval (km)', 'Leave empty for no schedule by distance.'),
    numberField('engineHoursStart', 'Engine hours at the last service'),
    numberField('engineHoursEvery', 'Service interval (engine hours)', 'Leave empty for no schedule by engine hours.'),
  ],
  async values(db, device) {
    const { odometer: o, engineHours: e } = (await deviceSettings(db, device.id)).maintenance;
    return { odometerStartKm: shown(o?.startKm), odometerEveryKm: shown(o?.everyKm), engineHoursStart: shown(e?.start), engineHoursEvery: shown(e?.every) };
  },
  schema: z
    .object({
      odometerStartKm: formNumber('odometer at the last service', odometer.startKm),
      odometerEveryKm: formNumber('distance service interval', odometer.everyKm),
      engineHoursStart: formNumber('engine hours at the last service', engineHours.start),
      engineHoursEvery: formNumber('engine hours service interval', engineHours.every),
    })
    .refine(complete('odometerStartKm', 'odometerEveryKm'), intervalNeeded('odometerEveryKm', 'a distance'))
    .refine(complete('engineHoursStart', 'engineHoursEvery'), intervalNeeded('engineHoursEvery', 'an engine hours'))
    .transform((v) => ({
      odometer: schedule(v.odometerStartKm, v.odometerEveryKm, (startKm, everyKm) => ({ startKm, everyKm })),
      engineHours: schedule(v.engineHoursStart, v.engineHoursEvery, (start, every) => ({ start, every })),
    })),
  async save(tx, device, values) {
    await writeDeviceSettings(tx, device.id, { maintenance: values });
  },
});

const driver = section({
  legend: 'Driver',
  async fields(db, device) {
    const drivers = await listDrivers(db, device.accountId, null, MAX_DRIVERS_PER_ACCOUNT);
    const choices = drivers.map((d) => ({
      value: d.id,
      label: `${d.name}${d.uniqueId ? ` (${d.uniqueId})` : ''}${d.deviceId && d.deviceId !== device.id ? ' — now on another unit' : ''}`,
    }));
    return [
      {
        name: 'driverId',
        label: 'Driver of this unit',
        type: 'select',
        choices: [{ value: '', label: 'No driver' }, ...choices],
        hint: drivers.length === 0 ? 'No drivers yet: add them on the Drivers page.' : 'A driver drives one unit at a time: choosing one who is on another unit moves them here.',
      },
    ];
  },
  values: async (db, device) => ({ driverId: (await deviceDriver(db, device.id)) ?? '' }),
  schema: z.object({ driverId: z.string().max(64, 'choose a driver from the list').optional() }),
  async save(tx, device, { driverId }) {
    if (driverId === undefined) return;
    if (driverId !== '' && !(await findDriver(tx, device.accountId, driverId))) {
      throw new ApiError('bad_request', 'The chosen driver no longer exists. Go back, reload the page and choose again.');
    }
    await writeDriverAssignment(tx, device.accountId, device.id, driverId === '' ? null : driverId);
  },
});

export const DEVICE_SECTIONS: readonly DeviceFormSection[] = [identity, speed, fuel, maintenance, driver];
