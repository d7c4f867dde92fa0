// Drivers and their assignment to units, as the public API and the dashboard's form take and show them.
import { z } from 'zod';
import { idField as id, nameField as name, textField as text, timestamp } from '../../shared/validation.js';

export const DriverInput = z
  .strictObject({
    name: name(100).meta({ description: '1 to 100 characters' }),
    phone: text(32).default(''),
    licenseNumber: text(64).default(''),
    uniqueId: name(64).nullable().default(null).meta({ description: 'Identification key the vehicle reads (iButton, RFID card); unique within the account' }),
  })
  .meta({ id: 'DriverInput' });

export const Driver = z
  .object({
    id: z.string().meta({ example: 'drv_k3x9q2m7p4t8w6z5y2b3' }),
    name: z.string(),
    phone: z.string(),
    licenseNumber: z.string(),
    uniqueId: z.string().nullable(),
    deviceId: z.string().nullable().meta({ description: 'The unit the driver is assigned to' }),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'Driver' });

export const DriverAssignmentInput = z.strictObject({ driverId: id.nullable().meta({ description: 'A driver of the account, or null to take the unit’s driver off' }) }).meta({ id: 'DriverAssignmentInput' });
export const DriverAssignment = z.object({ deviceId: z.string(), driverId: z.string().nullable() }).meta({ id: 'DriverAssignment' });
