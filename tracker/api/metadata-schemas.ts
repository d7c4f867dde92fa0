// Shapes of custom rules, of events and of the write-scope lists: they validate requests, shape
// responses and feed the OpenAPI document. Geofences, drivers and unit and account settings have
// theirs in their domains (geofences/schemas.ts, drivers/schemas.ts, devices/settings-schemas.ts),
// where the dashboard's forms validate with them too.
import { z } from 'zod';
import { idField as id, nameField as name, timestamp } from '../../shared/validation.js';
import { conditionProblem, OPERATORS } from '../custom-rules/condition.js';
import { TimeWindow } from '../custom-rules/time-window.js';
import { EVENT_TYPES } from '../events/types.js';
import { TELEMETRY, TELEMETRY_FAMILIES } from '../positions/telemetry.js';
import { MAX_PAGE, paging } from '../storage/paging.js';
import { Position } from './schemas.js';

const severity = z.enum(['critical', 'warning', 'info']);

const condition = z
  .record(z.string(), z.unknown())
  .superRefine((value, ctx) => {
    const problem = conditionProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .meta({
    description: `JSON Logic (jsonlogic.com) over the position: \`speed\` (km/h), \`heading\`, \`lat\`, \`lng\`, \`valid\`, \`altitude\`, \`satellites\` and \`attributes.*\`, the telemetry vocabulary (${Object.keys(TELEMETRY).join(', ')}, ${Object.keys(TELEMETRY_FAMILIES).map((f) => `${f}<n>`).join(', ')}; units in docs/telemetry.md) and \`attributes.io.<id>\` for raw protocol values. Operators: ${OPERATORS.join(' ')}.`,
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

/** Where an event happened: a fix, or the unit's last known one, marked as such. */
const EventPosition = Position.pick({ lat: true, lng: true, speed: true, heading: true, timestamp: true })
  .extend({
    valid: z.boolean().optional().meta({ description: 'Whether this fix was a valid GPS fix; absent on events recorded before it was given' }),
    lastKnown: z.boolean().optional().meta({ description: 'True when the report at the event had no valid fix, or for online/offline: this is the last known position and `timestamp` is its own time; absent on events recorded before it was given' }),
  })
  .meta({ id: 'EventPosition' });

export const Event = z
  .object({
    id: z.number().int(),
    type: z.enum(EVENT_TYPES),
    deviceId: z.string(),
    createdAt: timestamp.meta({ description: 'When the event was recorded (UTC)' }),
    position: EventPosition.nullable().meta({ description: 'The fix the event was judged on; for an alarm without a valid fix and for online/offline, the last known position (`lastKnown: true`); null when there is none' }),
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
