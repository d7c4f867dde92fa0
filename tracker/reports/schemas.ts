// The reports as the public API shows them (JSON, and the same fields flattened into CSV columns),
// and their query.
import { z } from 'zod';
import { timestamp } from '../../shared/validation.js';
import { DEFAULT_RANGE_HOURS } from '../positions/range.js';

/** Units one report call may name; without deviceId a call covers every unit of the account. */
export const MAX_REPORT_DEVICES = 500;

export const ReportsQuery = z.object({
  from: timestamp.optional().meta({ description: `Start (inclusive), ISO 8601 with a time zone; default ${DEFAULT_RANGE_HOURS} hours before \`to\`` }),
  to: timestamp.optional().meta({ description: 'End (inclusive), ISO 8601 with a time zone; default now' }),
  deviceId: z.array(z.string().max(64)).max(MAX_REPORT_DEVICES).optional().meta({ description: `A unit to report on; repeat the parameter for several (at most ${MAX_REPORT_DEVICES}); absent: every unit of the account` }),
  daily: z.enum(['true', 'false']).default('false').meta({ description: 'Summary only: `true` gives one row per unit and UTC day with positions' }),
});

const place = (what: string) =>
  z.object({ lat: z.number(), lng: z.number() }).meta({ description: `${what} (decimal degrees, WGS84)` });
const seconds = (what: string) => z.number().meta({ description: `${what}, in seconds` });

export const Trip = z
  .object({
    deviceId: z.string(),
    startTime: timestamp.meta({ description: 'Device time of the last record the unit stood at before moving' }),
    endTime: timestamp.meta({ description: 'Device time of the first record the unit stood at again' }),
    start: place('Where the trip started'),
    end: place('Where it ended'),
    distance: z.number().meta({ description: 'Metres, from the odometer (the device\'s own, or the one the tracker computes)' }),
    duration: seconds('endTime less startTime'),
    averageSpeed: z.number().meta({ description: 'distance over duration, km/h' }),
    maxSpeed: z.number().meta({ description: 'km/h' }),
    engineHours: z.number().nullable().meta({ description: 'Engine running time during the trip, in seconds; null when the unit reports neither engine hours nor ignition' }),
    fuelUsed: z.number().nullable().meta({ description: 'Litres, from fuelUsed or else the fuel level in litres; null when the unit reports neither' }),
    driverUniqueId: z.string().nullable().meta({ description: 'The driver key read during the trip (the last, if several)' }),
  })
  .meta({ id: 'Trip' });

export const Stop = z
  .object({
    deviceId: z.string(),
    startTime: timestamp.meta({ description: 'Device time of the first record the unit stood at' }),
    endTime: timestamp.meta({ description: 'Device time of the last record before it moved again (or of its last record in the range)' }),
    position: place('Where it stood'),
    duration: seconds('endTime less startTime'),
    engineOnTime: z.number().nullable().meta({ description: 'Seconds the engine ran while standing (idling); null when the unit reports neither engine hours nor ignition' }),
  })
  .meta({ id: 'Stop' });

const at = (what: string) =>
  z.object({ lat: z.number(), lng: z.number(), time: timestamp }).nullable().meta({ description: `${what}; null without positions` });

export const ReportSummary = z
  .object({
    deviceId: z.string(),
    day: z.string().nullable().meta({ description: 'The UTC day (YYYY-MM-DD) with `daily=true`; null for the whole range' }),
    distance: z.number().meta({ description: 'Metres, from the odometer' }),
    engineHours: z.number().nullable().meta({ description: 'Engine running time, in seconds; null when not reported' }),
    maxSpeed: z.number().nullable().meta({ description: 'km/h; null without positions' }),
    averageSpeed: z.number().nullable().meta({ description: 'Distance over duration of the trips, km/h; null without trips' }),
    trips: z.number().int().meta({ description: 'Trips that started in the period' }),
    idleTime: z.number().nullable().meta({ description: 'Seconds the engine ran while standing; null when not known' }),
    fuelUsed: z.number().nullable().meta({ description: 'Litres used on the trips that started in the period; null when the unit reports no fuel' }),
    firstPosition: at('The first position of the period'),
    lastPosition: at('The last position of the period'),
  })
  .meta({ id: 'ReportSummary' });
