// The OpenAPI 3.1 document, generated from the same zod schemas that validate requests and shape
// responses. Scopes, limits, their headers, every error and the units are documented here.
import { z } from 'zod';
import { EVENT_TYPES } from '../events/types.js';
import { INBOUND_MAX_BODY_BYTES } from '../../shared/inbound.js';
import { RECORD_KINDS } from '../records/kinds.js';
import { AccountSettingsPatch, DeviceSettingsPatch, DriverAssignmentInput, DriverInput, EventsQuery, GeofenceInput, ListQuery, RuleInput } from './metadata-schemas.js';
import { RecordsQuery } from './record-schemas.js';
import { AlertsQuery, MAX_RANGE_DAYS, PositionsQuery } from './schemas.js';

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
const json = (schema: object) => ({ 'application/json': { schema } });

const rateHeaders = {
  'X-RateLimit-Limit': { description: 'Requests allowed in the window', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the window', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'Seconds until the window resets', schema: { type: 'integer' } },
  RateLimit: { description: 'IETF draft RateLimit header', schema: { type: 'string' } },
  'RateLimit-Policy': { description: 'IETF draft RateLimit-Policy header', schema: { type: 'string' } },
  'X-Request-Id': { description: 'Request id, also in our logs', schema: { type: 'string' } },
};

const error = (description: string, headers: Record<string, object> = {}) => ({ description, headers, content: json(ref('Error')) });
const errors = (...statuses: number[]) =>
  Object.fromEntries(
    statuses.map((s) => [
      String(s),
      {
        400: error('Body or parameters invalid; the message names the parameter'),
        401: error('Token missing or invalid', { 'WWW-Authenticate': { schema: { type: 'string' } } }),
        403: error('The token lacks the required scope', { 'WWW-Authenticate': { schema: { type: 'string' } } }),
        404: error('No such resource in the calling account'),
        409: error("Conflicts with the resource's state: the device's protocol has no such command, a geofence is used by a rule, a limit per account is reached, a driver's uniqueId is taken"),
        413: error('The body is too large'),
        415: error('Content-Type must be application/json'),
        422: error('The Idempotency-Key was already used with a different body'),
        429: error('Rate limit exceeded', { 'Retry-After': { description: 'Seconds to wait (at least 1)', schema: { type: 'integer' } }, ...rateHeaders }),
        500: error('Internal error'),
        502: error('The tracking backend does not respond'),
      }[s],
    ]),
  );

function queryParams(schema: z.ZodObject) {
  return Object.entries(schema.shape).map(([name, field]) => {
    const s = z.toJSONSchema(field as z.ZodType, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
    const { description, $schema: _s, ...rest } = s;
    return { name, in: 'query', required: false, description, schema: rest };
  });
}

const pathId = { name: 'id', in: 'path', required: true, description: 'Unit id', schema: { type: 'string' } };
const ok = (description: string, schema: object) => ({ description, headers: rateHeaders, content: json(schema) });
const pageOf = (id: string) => ({ type: 'object', required: ['data'], properties: { data: { type: 'array', items: ref(id) }, nextCursor: { type: ['string', 'null'] } } });

/** The input schema of an inbound action's body, as JSON Schema (extra fields allowed). */
function bodySchema(schema: z.ZodType): object {
  const { $schema: _s, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
}

const recordPaths = () =>
  Object.fromEntries(
    RECORD_KINDS.map((kind) => [
      `/api/public/v1/${kind.path}`,
      {
        get: operation(`List ${kind.path.replace('-', ' ')} created by inbound webhooks, newest first`, 'read', '60/min', {
          description: `Scope: \`read\`. Rate limit: 60/min per token. Records the account's \`${kind.action}\` inbound webhooks created, newest \`time\` first. Without \`limit\` at most 1000 are returned, with \`nextCursor\` when there are more.`,
          parameters: queryParams(RecordsQuery),
          responses: { 200: ok(kind.path, pageOf(String(kind.output.meta()?.id))), ...errors(400, 401, 403, 429, 500, 502) },
        }),
      },
    ]),
  );

const inboundPath = () => ({
  post: {
    summary: "Inbound webhook: create a record in the webhook's account",
    description: [
      "Not a bearer-token endpoint: the webhook's secret travels in the query string. The action performed is the one the webhook was created with; the body is a JSON object of that action's fields (see docs/inbound.md), and fields beyond them are kept with the record.",
      `Bodies over ${INBOUND_MAX_BODY_BYTES} bytes get 413. An unknown webhook and a wrong secret get the same 401. With an \`Idempotency-Key\`, the first response to the key is given again (with \`Idempotent-Replayed: true\`) for 24 hours and nothing new is created; the same key with a different body gets 422.`,
      'Rate limits (defaults): 120 calls per minute per webhook; an address whose calls were refused with 401 more than 30 times in a minute is refused with 429 for the rest of that minute. Inbound calls emit no events.',
    ].join('\n\n'),
    security: [{ inboundSecret: [] }],
    parameters: [
      { name: 'webhookId', in: 'path', required: true, schema: { type: 'string' } },
      { name: 'Idempotency-Key', in: 'header', required: false, description: '1 to 255 printable ASCII characters', schema: { type: 'string', maxLength: 255 } },
    ],
    requestBody: {
      required: true,
      content: json({
        oneOf: [...RECORD_KINDS.map((k) => bodySchema(k.input)), { type: 'object', description: 'log_only: any JSON object, stored as sent' }],
      }),
    },
    responses: {
      201: { description: 'Record created', content: json(ref('InboundAccepted')) },
      202: { description: 'log_only: the call is stored', content: json(ref('InboundAccepted')) },
      400: error('The body is not a JSON object, or a field is invalid; the message names it'),
      401: error('Unknown webhook or wrong secret'),
      ...errors(413, 415, 422, 429, 500, 502),
    },
  },
});

function operation(summary: string, scope: string, limit: string, extra: object) {
  return { summary, description: `Scope: \`${scope}\`. Rate limit: ${limit} per token.`, security: [{ bearer: [scope] }], ...extra };
}

const read = (summary: string, extra: object) => operation(summary, 'read', '60/min', extra);
const write = (summary: string, extra: object) => operation(summary, 'write', '60/min (write bucket)', extra);
const body = (id: string) => ({ required: true, content: json(ref(id)) });
const idParam = (description: string) => ({ name: 'id', in: 'path', required: true, description, schema: { type: 'string' } });
const deleted = { description: 'Deleted', headers: rateHeaders };

/** Request bodies described as clients send them (defaults optional), beside the response shapes. */
const INPUTS: Record<string, z.ZodType> = { GeofenceInput, DriverInput, DriverAssignmentInput, RuleInput, DeviceSettingsPatch, AccountSettingsPatch };

function inputSchemas(): Record<string, object> {
  const out: Record<string, object> = {};
  const name = (id: string) => (id in INPUTS ? id : `${id}Input`);
  for (const schema of Object.values(INPUTS)) {
    const { $defs = {} } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as { $defs?: Record<string, object> };
    for (const [id, def] of Object.entries($defs)) {
      out[name(id)] = JSON.parse(JSON.stringify(def).replace(/"#\/\$defs\/([A-Za-z]+)"/g, (_m, ref: string) => `"#/components/schemas/${name(ref)}"`)) as object;
    }
  }
  return out;
}

/** List, create, read, replace, delete: the write-scope resources. */
function collection(path: string, what: string, schema: string, input: string, extra = '') {
  const one = idParam(`${what} id`);
  return {
    [path]: {
      get: read(`List the account's ${what}s, oldest first`, {
        description: `Scope: \`read\`. Rate limit: 60/min per token. Without \`limit\` at most 1000 are returned, with \`nextCursor\` when there are more.${extra}`,
        parameters: queryParams(ListQuery),
        responses: { 200: ok(`${what}s`, pageOf(schema)), ...errors(400, 401, 403, 429, 500, 502) },
      }),
      post: write(`Create a ${what}`, { requestBody: body(input), responses: { 201: ok(`The new ${what}`, ref(schema)), ...errors(400, 401, 403, 409, 413, 415, 429, 500, 502) } }),
    },
    [`${path}/{id}`]: {
      get: read(`One ${what}`, { parameters: [one], responses: { 200: ok(`The ${what}`, ref(schema)), ...errors(401, 403, 404, 429, 500, 502) } }),
      put: write(`Replace a ${what}`, { parameters: [one], requestBody: body(input), responses: { 200: ok(`The ${what}`, ref(schema)), ...errors(400, 401, 403, 404, 409, 413, 415, 429, 500, 502) } }),
      delete: write(`Delete a ${what}`, { parameters: [one], responses: { 204: deleted, ...errors(401, 403, 404, 409, 429, 500, 502) } }),
    },
  };
}

export function openApiDocument(): object {
  const { schemas } = z.toJSONSchema(z.globalRegistry, { uri: (id) => `#/components/schemas/${id}`, io: 'output' }) as { schemas: Record<string, Record<string, unknown>> };
  Object.assign(schemas, inputSchemas());
  for (const s of Object.values(schemas)) delete s.$schema;
  return {
    openapi: '3.1.0',
    info: {
      title: 'Fleet tracking public API',
      version: '1',
      description: [
        'REST/JSON API for fleet tracking data. Every request carries `Authorization: Bearer <token>`.',
        'Units: speed in km/h, heading in degrees clockwise from true north, positions in decimal degrees (WGS84), times ISO 8601 UTC.',
        'Rate limits are counted per token: 60 requests per minute shared by the read endpoints, 60 per minute shared by the write endpoints (geofences, drivers, rules, settings, acknowledging alerts), 10 per minute for locate. Every limited response carries X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, RateLimit and RateLimit-Policy; a 429 carries Retry-After.',
        'Errors are `{ "error": "<message>", "code": "<code>" }`. When the tracking backend does not answer, the API answers 502.',
      ].join('\n\n'),
    },
    components: {
      schemas,
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Scopes: read, write, commands' },
        inboundSecret: { type: 'apiKey', in: 'query', name: 'secret', description: "The inbound webhook's secret, shown once when it was created" },
      },
    },
    security: [{ bearer: [] }],
    paths: {
      '/api/public/v1/devices': {
        get: operation('List the units visible to the token', 'read', '60/min', { responses: { 200: ok('Units', pageOf('Device')), ...errors(401, 403, 429, 500, 502) } }),
      },
      '/api/public/v1/devices/{id}': {
        get: operation('One unit', 'read', '60/min', { parameters: [pathId], responses: { 200: ok('The unit', ref('Device')), ...errors(401, 403, 404, 429, 500, 502) } }),
      },
      '/api/public/v1/devices/{id}/positions': {
        get: operation('Position history of one unit, oldest first', 'read', '60/min', {
          description: `Scope: \`read\`. Rate limit: 60/min per token. The range may span at most ${MAX_RANGE_DAYS} days; \`to\` defaults to now and \`from\` to 24 hours before \`to\`. Without \`limit\` every position in the range is streamed; with it, pages carry \`nextCursor\`.`,
          parameters: [pathId, ...queryParams(PositionsQuery)],
          responses: { 200: ok('Positions', pageOf('Position')), ...errors(400, 401, 403, 404, 429, 500, 502) },
        }),
      },
      '/api/public/v1/devices/{id}/locate': {
        post: operation('Ask the unit for an immediate position fix', 'commands', '10/min', {
          description: 'Scope: `commands`. Rate limit: 10/min per token. Queues a locate command; it is sent at once when the device is connected, else when it next connects, unless it expires first (5 minutes by default).',
          parameters: [pathId],
          requestBody: { required: false, content: json(ref('LocateBody')) },
          responses: { 200: ok('Queued', ref('CommandResult')), ...errors(400, 401, 403, 404, 409, 429, 500, 502) },
        }),
      },
      '/api/public/v1/devices/{id}/commands/{commandId}': {
        get: operation('What became of a command', 'read', '60/min', {
          parameters: [pathId, { name: 'commandId', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { 200: ok('The command', ref('Command')), ...errors(401, 403, 404, 429, 500, 502) },
        }),
      },
      '/api/public/v1/alerts': {
        get: operation('List alerts, newest first', 'read', '60/min', {
          description: 'Scope: `read`. Rate limit: 60/min per token. `status` defaults to `open`. Without `limit` at most 1000 alerts are returned, with `nextCursor` when there are more.',
          parameters: queryParams(AlertsQuery),
          responses: { 200: ok('Alerts', pageOf('Alert')), ...errors(400, 401, 403, 429, 500, 502) },
        }),
      },
      '/api/public/v1/alerts/{id}/acknowledge': {
        post: write('Acknowledge an alert', {
          description: 'Scope: `write`. Rate limit: 60/min (write bucket) per token. Moves an open alert to `acknowledged`; acknowledging it again changes nothing and answers the same. No body is needed.',
          parameters: [idParam('Alert id (an integer)')],
          responses: { 200: ok('The alert', ref('Alert')), ...errors(401, 403, 404, 429, 500, 502) },
        }),
      },
      '/api/public/v1/events': {
        get: read('List events, newest first', {
          description: `Scope: \`read\`. Rate limit: 60/min per token. Types: ${EVENT_TYPES.join(', ')}. Without \`limit\` at most 1000 events are returned, with \`nextCursor\` when there are more. An unknown \`type\` is a 400; another account's \`deviceId\` a 404. See docs/events.md for when each type is raised.`,
          parameters: queryParams(EventsQuery),
          responses: { 200: ok('Events', pageOf('Event')), ...errors(400, 401, 403, 404, 429, 500, 502) },
        }),
      },
      ...collection('/api/public/v1/geofences', 'geofence', 'Geofence', 'GeofenceInput', ' A geofence used by a rule cannot be deleted (409).'),
      ...collection('/api/public/v1/drivers', 'driver', 'Driver', 'DriverInput'),
      ...collection('/api/public/v1/rules', 'rule', 'Rule', 'RuleInput'),
      '/api/public/v1/devices/{id}/driver': {
        get: read("The unit's driver", { parameters: [pathId], responses: { 200: ok('The assignment', ref('DriverAssignment')), ...errors(401, 403, 404, 429, 500, 502) } }),
        put: write('Assign a driver to the unit (or none)', {
          description: 'Scope: `write`. Rate limit: 60/min (write bucket) per token. A driver drives one unit at a time: assigning them here takes them off any other unit.',
          parameters: [pathId],
          requestBody: body('DriverAssignmentInput'),
          responses: { 200: ok('The assignment', ref('DriverAssignment')), ...errors(400, 401, 403, 404, 413, 415, 429, 500, 502) },
        }),
      },
      '/api/public/v1/devices/{id}/settings': {
        get: read("The unit's event settings", { parameters: [pathId], responses: { 200: ok('Settings', ref('DeviceSettings')), ...errors(401, 403, 404, 429, 500, 502) } }),
        patch: write("Change the unit's event settings", {
          description: 'Scope: `write`. Rate limit: 60/min (write bucket) per token. Fields left out are unchanged; null clears a setting.',
          parameters: [pathId],
          requestBody: body('DeviceSettingsPatch'),
          responses: { 200: ok('Settings', ref('DeviceSettings')), ...errors(400, 401, 403, 404, 413, 415, 429, 500, 502) },
        }),
      },
      '/api/public/v1/settings': {
        get: read("The account's event settings", { responses: { 200: ok('Settings', ref('AccountSettings')), ...errors(401, 403, 429, 500, 502) } }),
        patch: write("Change the account's event settings", { requestBody: body('AccountSettingsPatch'), responses: { 200: ok('Settings', ref('AccountSettings')), ...errors(400, 401, 403, 413, 415, 429, 500, 502) } }),
      },
      ...recordPaths(),
      '/api/inbound/{webhookId}': inboundPath(),
    },
  };
}
