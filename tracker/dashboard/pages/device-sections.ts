// The device edit form, in sections. Each section names its fields, reads their current values,
// validates what was submitted and saves it; the page validates every section first and then
// saves them all in one transaction. Further settings of a device (speed limit, fuel thresholds,
// maintenance schedule) are one more section each in DEVICE_SECTIONS.
import { z } from 'zod';
import { deviceName, plate } from '../../devices/fields.js';
import { updateDevice, type Device } from '../../devices/repository.js';
import type { Queryable } from '../../storage/db.js';
import type { FieldSpec } from '../forms.js';

export interface DeviceFormSection {
  legend: string;
  fields: readonly FieldSpec[];
  /** The values the form shows before anything is submitted. */
  values(db: Queryable, device: Device): Promise<Record<string, string>>;
  /** Checks this section's submitted fields; on success, the save to run in the transaction. */
  parse(submitted: Record<string, string>): { ok: true; save: (tx: Queryable, device: Device) => Promise<void> } | { ok: false; error: z.ZodError };
}

interface SectionDefinition<T> {
  legend: string;
  fields: readonly FieldSpec[];
  values(db: Queryable, device: Device): Promise<Record<string, string>>;
  schema: z.ZodType<T>;
  save(tx: Queryable, device: Device, values: T): Promise<void>;
}

export function section<T>(def: SectionDefinition<T>): DeviceFormSection {
  return {
    legend: def.legend,
    fields: def.fields,
    values: def.values,
    parse(submitted) {
      const parsed = def.schema.safeParse(submitted);
      if (!parsed.success) return { ok: false, error: parsed.error };
      return { ok: true, save: (tx, device) => def.save(tx, device, parsed.data) };
    },
  };
}

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

export const DEVICE_SECTIONS: readonly DeviceFormSection[] = [identity];
