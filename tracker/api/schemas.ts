// The public API's shapes: one set of zod schemas validates requests, shapes responses and
// generates the OpenAPI document, so the three cannot drift apart.
import { z } from 'zod';
import { timestamp } from '../../shared/validation.js';
import { COMMAND_TYPES, CUSTOM_MAX_CHARS, customHexField, customTextField, INTERVAL_SECONDS, intervalField } from '../commands/attributes.js';
import { FLAG_REASONS } from '../positions/filters.js';
import { LATEST_KEYS } from '../positions/latest-telemetry.js';
import { DEFAULT_RANGE_HOURS } from '../positions/range.js';
import { TELEMETRY, telemetrySchema } from '../positions/telemetry.js';
import { paging } from '../storage/paging.js';
import { HISTORY_SHAPES } from './positions-json.js';

export const LatLng = z.object({ lat: z.number().min(-90).max(90), lng: z.number().min(-180).max(180) }).meta({ id: 'LatLng', description: 'Decimal degrees (WGS84)' });

/** A kept key's value with the time it was reported: its type, unit and meaning from the vocabulary. */
function reported(key: (typeof LATEST_KEYS)[number]) {
  const e = TELEMETRY[key];
  const value = e.type === 'boolean' ? z.boolean() : e.type === 'number' ? z.number() : z.string();
  const meaning = key === 'alarm' ? 'The last alarm the device reported; several at once are comma-separated (docs/telemetry.md lists the names)' : e.description;
  return z
    .object({
      value: value.meta({ description: e.unit ? `${meaning}, in ${e.unit}` : meaning }),
      time: timestamp.meta({ description: 'Device time of the report that carried the value (UTC); for a report without a fix, the time it was received' }),
    })
    .meta({ description: e.unit ? `${meaning} (${e.unit})` : meaning });
}

export const DeviceTelemetry = z
  .object(Object.fromEntries(LATEST_KEYS.map((key) => [key, reported(key).optional()])))
  .meta({
    id: 'DeviceTelemetry',
    description: 'The latest value of each key the device reported (absent until it reports one), with the time it was reported: names and units of the telemetry vocabulary (docs/telemetry.md)',
  });

export const Device = z
  .object({
    id: z.string().meta({ description: 'Unit identifier, used as {id} in paths', example: 'dev_k3x9q2m7p4t8w6z5y2b3' }),
    name: z.string(),
    plate: z.string().meta({ description: 'Vehicle plate; empty when not set' }),
    imei: z.string().regex(/^[0-9]{5,20}$/).meta({ description: 'Device identifier (IMEI or the protocol id), digits as a string' }),
    status: z.enum(['online', 'offline']).meta({ description: 'online while the device holds a live connection and has reported within the device timeout' }),
    speed: z.number().nullable().meta({ description: 'Current speed in km/h; 0 for a device that never reported; null when the stored value is not a finite number' }),
    position: LatLng.nullable().meta({ description: 'Last valid position; null for a device that never reported (or whose stored coordinates are not finite numbers)' }),
    lastUpdate: timestamp.nullable().meta({ description: 'Time of the last valid position (UTC); null for a device that never reported' }),
    telemetry: DeviceTelemetry,
  })
  .meta({ id: 'Device' });

/** The telemetry vocabulary, as positions and webhooks carry it; each value's unit is in its description. */
export const Telemetry = telemetrySchema.meta({
  id: 'Telemetry',
  description: 'The telemetry vocabulary (docs/telemetry.md): the keys below, numbered keys temp<n> (°C), adc<n> (V), in<n> and out<n> (booleans), and raw protocol values under io. History: with `fields=full`',
});

export const Position = z
  .object({
    lat: z.number().nullable().meta({ description: 'Decimal degrees; null (as for every number here) when the stored value is not a finite number' }),
    lng: z.number().nullable(),
    speed: z.number().nullable().meta({ description: 'km/h' }),
    heading: z.number().nullable().meta({ description: 'Degrees clockwise from true north, 0 to 360' }),
    timestamp: timestamp.meta({ description: 'Device time of the fix (UTC)' }),
    valid: z.boolean().optional().meta({ description: 'The device reported a valid GPS fix; false when it had none (the coordinates are then the last it held). History: with `fields=full`' }),
    altitude: z.number().nullable().optional().meta({ description: 'Metres above sea level; null when the device did not report it. History: with `fields=full`' }),
    satellites: z.number().int().nullable().optional().meta({ description: 'Satellites in use; null when the device did not report it. History: with `fields=full`' }),
    attributes: Telemetry.optional(),
    filtered: z.enum(FLAG_REASONS).optional().meta({ description: 'Set when a position filter flagged the fix (at 0,0; too far in the future; an impossible jump): it moved neither the current position nor the counters and raised no events. History: with `fields=full`, only when set' }),
  })
  .meta({ id: 'Position' });

export const Alert = z
  .object({
    id: z.number().int(),
    type: z.string().meta({ description: 'Alert kind: an event type (sos, speeding, fuel_alert_critical, …), or webhook_disabled' }),
    severity: z.enum(['critical', 'warning', 'info']),
    deviceId: z.string().nullable().meta({ description: 'The unit concerned; null for an alert about the account itself (type webhook_disabled)' }),
    message: z.string(),
    createdAt: timestamp,
    status: z.enum(['open', 'acknowledged']),
    acknowledgedAt: timestamp.nullable().meta({ description: 'When it was acknowledged; null while open' }),
  })
  .meta({ id: 'Alert' });

export const CommandResult = z
  .object({ ok: z.boolean(), queued: z.boolean(), commandId: z.string() })
  .meta({ id: 'CommandResult' });

export const CommandTypeName = z.enum(COMMAND_TYPES).meta({ id: 'CommandType', description: 'locate, engineStop (refused while moving), engineResume, reboot, setInterval, custom' });

export const CommandAttributes = z
  .strictObject({
    seconds: intervalField.optional().meta({ description: `setInterval: the reporting period, ${INTERVAL_SECONDS.min} to ${INTERVAL_SECONDS.max} seconds` }),
    text: customTextField.optional().meta({ description: `custom: the protocol's own command text, printable ASCII, at most ${CUSTOM_MAX_CHARS} characters` }),
    hex: customHexField.optional().meta({ description: `custom: raw bytes as hex (binary protocols), at most ${CUSTOM_MAX_CHARS} bytes` }),
  })
  .meta({ id: 'CommandAttributes', description: 'setInterval takes `seconds`; custom takes `text` or `hex`; the other types take none' });

export const CommandBody = z
  .strictObject({ type: CommandTypeName, attributes: CommandAttributes.optional() })
  .meta({ id: 'CommandBody', description: 'The command to queue' });

export const CommandTypes = z
  .object({
    protocol: z.string().nullable().meta({ description: "The unit's protocol; null for a unit that never connected" }),
    types: z.array(CommandTypeName).meta({ description: 'What the unit can be sent; empty for a unit that never connected, whose protocol is not known yet' }),
  })
  .meta({ id: 'CommandTypes' });

export const Command = z
  .object({
    id: z.string(),
    deviceId: z.string(),
    type: CommandTypeName,
    attributes: CommandAttributes,
    tokenId: z.string().nullable().meta({ description: 'The id of the API token that sent it (never the token); null when a dashboard user sent it, or for commands sent before tokens were recorded' }),
    userId: z.string().nullable().meta({ description: 'The id of the dashboard user who sent it from the device page; null when a token sent it' }),
    status: z.enum(['queued', 'sent', 'delivered', 'expired', 'failed']),
    createdAt: timestamp,
    expiresAt: timestamp.meta({ description: 'A command not sent by then expires' }),
    sentAt: timestamp.nullable(),
    deliveredAt: timestamp.nullable(),
    endedAt: timestamp.nullable().meta({ description: 'When it expired or failed' }),
    reply: z.string().nullable().meta({ description: "The device's reply text, if any" }),
    position: Position.nullable().meta({ description: 'The position the device answered with, if any' }),
    error: z.string().nullable(),
  })
  .meta({ id: 'Command' });

export const ErrorBody = z
  .object({ error: z.string().meta({ description: 'Human-readable message' }), code: z.string().meta({ description: 'Machine-readable code' }) })
  .meta({ id: 'Error' });

export const page = <T extends z.ZodType>(item: T) =>
  z.object({
    data: z.array(item),
    nextCursor: z.string().nullable().optional().meta({ description: 'Present when `limit` was given: pass as `cursor` for the next page; null on the last page' }),
  });

export const PositionsQuery = z.object({
  from: timestamp.optional().meta({ description: `Start (inclusive), ISO 8601 with a time zone; default ${DEFAULT_RANGE_HOURS} hours before \`to\`` }),
  to: timestamp.optional().meta({ description: 'End (inclusive), ISO 8601 with a time zone; default now' }),
  fields: z.enum(HISTORY_SHAPES).default('lean').meta({ description: '`lean` (default): the five fields lat, lng, speed, heading, timestamp; `full`: also valid, altitude, satellites, attributes (the telemetry) and filtered (when set)' }),
  ...paging,
});

export const AlertsQuery = z.object({
  status: z.enum(['open', 'acknowledged']).default('open').meta({ description: 'Default open (the active alerts)' }),
  since: timestamp.optional().meta({ description: 'Only alerts created at or after this time' }),
  ...paging,
});

export const LocateBody = z.object({}).loose().meta({ id: 'LocateBody', description: 'No fields are defined; a body, if sent, must be a JSON object' });
