// Shapes of the write-scope resources (geofences, drivers, custom rules, unit and account
// settings) and of events: they validate requests, shape responses and feed the OpenAPI document.
import { z } from 'zod';
import { EVENT_TYPES } from '../events/types.js';
import { Shape } from '../geofences/shape.js';
import { conditionProblem, OPERATORS } from '../custom-rules/condition.js';
import { TimeWindow } from '../custom-rules/time-window.js';
import { MAX_PAGE, paging, Position } from './schemas.js';

const timestamp = z.iso.datetime({ offset: true }).meta({ description: 'ISO 8601 UTC timestamp', example: '2026-11-21T09:30:00.000Z' });
const name = (max: number) => z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);
const text = (max: number) => z.string().trim().max(max, `must be at most ${max} characters`);
const severity = z.enum(['critical', 'warning', 'info']);
const id = z.string().min(1).max(64);

export const GeofenceInput = z
  .strictObject({
    name: name(100).meta({ description: '1 to 100 characters' }),
    description: text(500).default(''),
    shape: Shape,
  })
  .meta({ id: 'GeofenceInput' });

export const Geofence = z
  .object({ id: z.string().meta({ example: 'gfn_k3x9q2m7p4t8w6z5y2b3' }), name: z.string(), description: z.string(), shape: Shape, createdAt: timestamp, updatedAt: timestamp })
  .meta({ id: 'Geofence' });

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

const condition = z
  .record(z.string(), z.unknown())
  .superRefine((value, ctx) => {
    const problem = conditionProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .meta({
    description: `JSON Logic (jsonlogic.com) over the position: \`speed\` (km/h), \`heading\`, \`lat\`, \`lng\`, \`valid\`, \`altitude\`, \`satellites\` and \`attributes.*\` (ignition, fuel, fuelLevel, power, batteryLevel, odometer, io.<id>…). Operators: ${OPERATORS.join(' ')}.`,
    example: { and: [{ '>': [{ var: 'speed' }, 50] }, { '==': [{ var: 'attributes.ignition' }, true] }] },
  });

export const RuleInput = z
  .strictObject({
    name: name(100),
    enabled: z.boolean().default(true),
    severity: severity.meta({ description: 'Severity of the alert the rule opens' }),
    condition,
    geofenceId: id.nullable().default(null).meta({ description: 'Only while the unit is inside this geofence (on a valid fix)' }),
    timeWindow: TimeWindow.nullable().default(null).meta({ description: 'Only within these local days and hours' }),
    deviceIds: z.array(id).min(1).max(1000).nullable().default(null).meta({ description: 'The units it applies to; null for every unit of the account' }),
  })
  .meta({ id: 'RuleInput' });

export const Rule = z
  .object({
    id: z.string().meta({ example: 'rul_k3x9q2m7p4t8w6z5y2b3' }),
    name: z.string(),
    enabled: z.boolean(),
    severity,
    condition: z.record(z.string(), z.unknown()),
    geofenceId: z.string().nullable(),
    timeWindow: TimeWindow.nullable(),
    deviceIds: z.array(z.string()).nullable(),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'Rule' });

const kmh = z.number().gt(0, 'must be greater than 0').max(400, 'must be at most 400');
const litres = (min: 'positive' | 'zero') => (min === 'positive' ? z.number().gt(0, 'must be greater than 0') : z.number().min(0, 'must be at least 0')).max(10_000, 'must be at most 10000');
const reading = (unit: string) => z.number().min(0, 'must be at least 0').max(1e7, 'must be at most 10000000').default(0).meta({ description: `Reading at the last service, ${unit} (default 0)` });
const interval = (unit: string) => z.number().gt(0, 'must be greater than 0').max(1e6, 'must be at most 1000000').meta({ description: `Service interval, ${unit}` });

const settingsFields = {
  speedLimitKmh: kmh.nullable().meta({ description: 'Speeding above this (km/h); null: the account default, else 90' }),
  fuelTankLitres: litres('positive').nullable().meta({ description: 'Tank capacity, litres: turns fuel percent readings into litres' }),
  fuelLowLitres: litres('zero').nullable().meta({ description: 'fuel_alert below this many litres' }),
  fuelLowPercent: z.number().min(0, 'must be at least 0').max(100, 'must be at most 100').nullable().meta({ description: 'fuel_alert below this percentage of the tank' }),
};

export const Maintenance = z
  .strictObject({
    odometer: z.strictObject({ startKm: reading('km'), everyKm: interval('km') }).nullable().meta({ description: 'maintenance_due each time the odometer passes startKm + n × everyKm' }),
    engineHours: z.strictObject({ start: reading('hours'), every: interval('hours') }).nullable().meta({ description: 'maintenance_due each time the engine hours pass start + n × every' }),
  })
  .meta({ id: 'Maintenance' });

export const DeviceSettings = z.object({ ...settingsFields, maintenance: Maintenance }).meta({ id: 'DeviceSettings' });

export const DeviceSettingsPatch = z
  .strictObject({
    speedLimitKmh: settingsFields.speedLimitKmh.optional(),
    fuelTankLitres: settingsFields.fuelTankLitres.optional(),
    fuelLowLitres: settingsFields.fuelLowLitres.optional(),
    fuelLowPercent: settingsFields.fuelLowPercent.optional(),
    maintenance: Maintenance.partial().optional(),
  })
  .meta({ id: 'DeviceSettingsPatch', description: 'Fields left out are unchanged; null clears a setting' });

export const AccountSettings = z.object({ speedLimitKmh: kmh.nullable().meta({ description: 'Speed limit of units without their own (km/h); null: 90' }) }).meta({ id: 'AccountSettings' });
export const AccountSettingsPatch = z.strictObject({ speedLimitKmh: kmh.nullable().optional() }).meta({ id: 'AccountSettingsPatch' });

export const Event = z
  .object({
    id: z.number().int(),
    type: z.enum(EVENT_TYPES),
    deviceId: z.string(),
    createdAt: timestamp.meta({ description: 'When the event was recorded (UTC)' }),
    position: Position.nullable().meta({ description: 'The fix the event was judged on; for an alarm without a fix and for online/offline, the last known position; null when there is none' }),
    alert: z.object({ id: z.number().int(), severity, message: z.string() }).nullable().meta({ description: 'The alert the event opened, if it needs attention' }),
    data: z.record(z.string(), z.unknown()).meta({ description: 'Details by type: speed and speedLimit, geofenceId and geofenceName, fuel readings, ruleId and ruleName, maintenance kind and dueAt…' }),
  })
  .meta({ id: 'Event' });

const listPaging = {
  ...paging,
  limit: paging.limit.meta({ description: `Page size, 1 to ${MAX_PAGE}; without it at most 1000 rows, with \`nextCursor\` when there are more` }),
};

export const EventsQuery = z.object({
  since: timestamp.optional().meta({ description: 'Only events recorded at or after this time' }),
  type: z.enum(EVENT_TYPES).optional().meta({ description: 'Only events of this type' }),
  deviceId: id.optional().meta({ description: 'Only events of this unit' }),
  ...listPaging,
});

/** Geofences, drivers and rules: oldest first. */
export const ListQuery = z.object(listPaging);
