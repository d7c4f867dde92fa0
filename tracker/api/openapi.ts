// The OpenAPI 3.1 document, generated from the route catalogue and the same zod schemas that
// validate requests and shape responses. Scopes, limits, their headers, every error and the units
// are documented here.
import { z } from 'zod';
import { OPERATIONS, TAGS, type Operation } from '../../shared/catalogue.js';
import { INBOUND_MAX_BODY_BYTES } from '../../shared/inbound.js';
import { EVENT_TYPES } from '../events/types.js';
import { MAX_RANGE_DAYS } from '../positions/range.js';
import { RECORD_KINDS } from '../records/kinds.js';
import { BODIES, QUERIES } from './schema-registry.js';
// The live feed's data schemas: registered by their ids when loaded, then listed with the others.
import './stream-schemas.js';

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
const json = (schema: object) => ({ 'application/json': { schema } });

const rateHeaders = {
  'X-RateLimit-Limit': { description: 'Requests allowed in the window', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the window', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'When the window resets, in seconds since the Unix epoch (UTC), as most clients expect of this header', schema: { type: 'integer' } },
  RateLimit: { description: 'IETF draft RateLimit header, `"<policy>"; r=<remaining>; t=<seconds until the window resets>`', schema: { type: 'string' } },
  'RateLimit-Policy': { description: 'IETF draft RateLimit-Policy header, `"<policy>"; q=<limit>; w=<window in seconds>`', schema: { type: 'string' } },
  'X-Request-Id': { description: 'Request id, also in our logs', schema: { type: 'string' } },
};

const challenge = { 'WWW-Authenticate': { description: 'The Bearer challenge', schema: { type: 'string' } } };
const error = (description: string, headers: Record<string, object> = {}) => ({ description, headers, content: json(ref('Error')) });
const ERRORS: Record<number, object> = {
  400: error('Body or parameters invalid; the message names the parameter'),
  401: error('Token missing or invalid', challenge),
  403: error('The token lacks the required scope', challenge),
  404: error('No such resource in the calling account'),
  409: error("Conflicts with the resource's state: the device's protocol has no such command, a geofence is used by a rule, a limit per account is reached, a driver's uniqueId is taken, a device identifier is already registered"),
  413: error('The body is too large'),
  415: error('Content-Type must be application/json'),
  422: error('The Idempotency-Key was already used with a different body'),
  429: error('Rate limit exceeded', { 'Retry-After': { description: 'Seconds to wait (at least 1)', schema: { type: 'integer' } }, ...rateHeaders }),
  500: error('Internal error'),
  502: error('The tracking backend does not respond'),
};

/** The rate limit of each token bucket, as the descriptions state it (the gateway's defaults). */
const LIMITS: Record<string, string> = { read: '60/min', write: '60/min (write bucket)', commands: '10/min' };

/** What each path parameter names, by the segment before it (or by its own name). */
const PARAMS: Record<string, string> = { devices: 'Unit id', alerts: 'Alert id (an integer)', geofences: 'Geofence id', drivers: 'Driver id', rules: 'Rule id', commandId: 'Command id', webhookId: 'Inbound webhook id' };

/** Descriptions that need the tracker's own constants, added to the catalogue's. */
const MORE: Record<string, string> = {
  listPositions: `The range may span at most ${MAX_RANGE_DAYS} days; \`to\` defaults to now and \`from\` to 24 hours before \`to\`. Without \`limit\` every position in the range is streamed; with it, pages carry \`nextCursor\`.`,
  listEvents: `Types: ${EVENT_TYPES.join(', ')}.`,
  ...Object.fromEntries(['reportTrips', 'reportStops', 'reportSummary'].map((id) => [id, `The range may span at most ${MAX_RANGE_DAYS} days.`])),
};

function named<T>(registry: Record<string, T>, name: string, op: Operation): T {
  const found = registry[name];
  if (!found) throw new Error(`OpenAPI document: ${op.operationId} names the unknown schema ${name}`);
  return found;
}

function queryParams(schema: z.ZodObject) {
  return Object.entries(schema.shape).map(([name, field]) => {
    const s = z.toJSONSchema(field as z.ZodType, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
    const { description, $schema: _s, ...rest } = s;
    return { name, in: 'query', required: false, description, schema: rest };
  });
}

function pathParams(path: string) {
  const segments = path.split('/');
  return segments.flatMap((segment, i) => {
    const name = /^\{(\w+)\}$/.exec(segment)?.[1];
    if (!name) return [];
    return [{ name, in: 'path', required: true, description: PARAMS[name] ?? PARAMS[segments[i - 1]!] ?? name, schema: { type: 'string' } }];
  });
}

function success(op: Operation): object {
  const { description, schema, page, events } = op.response;
  if (events) {
    const names = Object.keys(events).map((e) => `\`${e}\``).join(', ');
    const stream = { type: 'string', description: `Server-Sent Events named ${names}; each \`data\` is one JSON object (schemas in x-events), each \`id\` resumes with Last-Event-ID.`, 'x-events': Object.fromEntries(Object.entries(events).map(([e, s]) => [e, ref(s)])) };
    return { description, headers: rateHeaders, content: { 'text/event-stream': { schema: stream } } };
  }
  if (!schema) return { description, headers: rateHeaders };
  const items = { type: 'array', items: ref(schema) };
  const body =
    page === 'cursor' ? { type: 'object', required: ['data'], properties: { data: items, nextCursor: { type: ['string', 'null'], description: 'Present when `limit` was given: pass as `cursor` for the next page; null on the last page' } } }
    : page === 'all' ? { type: 'object', required: ['data'], properties: { data: items } }
    : ref(schema);
  const csv = op.response.csv ? { 'text/csv': { schema: { type: 'string', description: 'With `Accept: text/csv`: a header row, then one line per item, nested places as <name>Lat and <name>Lng columns' } } } : {};
  return { description, headers: rateHeaders, content: { ...json(body), ...csv } };
}

/** One operation as the document shows it, from its catalogue entry. */
function operation(op: Operation): object {
  const parameters = [...pathParams(op.path), ...(op.query ? queryParams(named(QUERIES, op.query, op)) : [])];
  const description = [op.scope && `Scope: \`${op.scope}\`. Rate limit: ${LIMITS[op.bucket]} per token.`, MORE[op.operationId], op.description].filter(Boolean).join(' ');
  return {
    operationId: op.operationId,
    tags: [op.tag],
    summary: op.summary,
    description,
    ...(op.scope ? { security: [{ bearer: [op.scope] }] } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(op.body ? { requestBody: { required: op.body.required, content: json(inputSchema(named(BODIES, op.body.schema, op))) } } : {}),
    responses: { [op.response.status]: success(op), ...Object.fromEntries(op.errors.map((s) => [s, ERRORS[s]])) },
    ...(op.bucket === 'inbound' ? inbound(op) : {}),
  };
}

/** The inbound call takes a secret rather than a token, and a body that depends on the webhook's action. */
function inbound(op: Operation) {
  return {
    description: [
      "Not a bearer-token endpoint: the webhook's secret travels in the query string. The action performed is the one the webhook was created with; the body is a JSON object of that action's fields (see docs/inbound.md), and fields beyond them are kept with the record.",
      `Bodies over ${INBOUND_MAX_BODY_BYTES} bytes get 413. An unknown webhook and a wrong secret get the same 401. With an \`Idempotency-Key\`, the first response to the key is given again (with \`Idempotent-Replayed: true\`) for 24 hours and nothing new is created; the same key with a different body gets 422.`,
      'Rate limits (defaults): 120 calls per minute per webhook; an address whose calls were refused with 401 more than 30 times in a minute is refused with 429 for the rest of that minute. Inbound calls emit no events.',
    ].join('\n\n'),
    security: [{ inboundSecret: [] }],
    parameters: [...pathParams(op.path), { name: 'Idempotency-Key', in: 'header', required: false, description: '1 to 255 printable ASCII characters', schema: { type: 'string', maxLength: 255 } }],
    requestBody: {
      required: true,
      content: json({ oneOf: [...RECORD_KINDS.map((k) => inputSchema(k.input)), { type: 'object', description: 'log_only: any JSON object, stored as sent' }] }),
    },
    responses: {
      [op.response.status]: { description: op.response.description, content: json(ref('InboundAccepted')) },
      202: { description: 'log_only: the call is stored', content: json(ref('InboundAccepted')) },
      400: error('The body is not a JSON object, or a field is invalid; the message names it'),
      401: error('Unknown webhook or wrong secret'),
      ...Object.fromEntries(op.errors.filter((s) => s > 401).map((s) => [s, ERRORS[s]])),
    },
  };
}

/**
 * A request body's schema as clients send it (fields with defaults optional), inlined rather than a
 * component: code generators (openapi-typescript among them) take a field with a default as always
 * present, except inside a request body.
 */
function inputSchema(schema: z.ZodType): object {
  const { $defs = {}, $schema: _s, ...root } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown> & { $defs?: Record<string, object> };
  const inline = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(inline);
    if (typeof node !== 'object' || node === null) return node;
    const { $ref, ...rest } = node as Record<string, unknown>;
    const target = typeof $ref === 'string' ? /^#\/\$defs\/(.+)$/.exec($ref)?.[1] : undefined;
    const own = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, inline(v)]));
    return target ? { ...(inline($defs[target]) as object), ...own } : { ...($ref === undefined ? {} : { $ref }), ...own };
  };
  return inline(root) as object;
}

/** Paths in catalogue order, each with its operations. */
function paths(): Record<string, Record<string, object>> {
  const out: Record<string, Record<string, object>> = {};
  for (const op of OPERATIONS) (out[op.path] ??= {})[op.method.toLowerCase()] = operation(op);
  return out;
}

export function openApiDocument(opts: { publicBaseUrl: string }): object {
  const { schemas } = z.toJSONSchema(z.globalRegistry, { uri: (id) => `#/components/schemas/${id}`, io: 'output' }) as { schemas: Record<string, Record<string, unknown>> };
  // Request bodies are described inline, as clients send them (see inputSchema).
  for (const name of Object.keys(BODIES)) delete schemas[name];
  // A fragment `$id` is not a valid schema id, and it hides the model from Swagger UI.
  for (const s of Object.values(schemas)) {
    delete s.$schema;
    delete s.$id;
  }
  for (const op of OPERATIONS) {
    if (op.response.schema && !schemas[op.response.schema]) throw new Error(`OpenAPI document: ${op.operationId} names the unknown schema ${op.response.schema}`);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Fleet tracking public API',
      version: '1',
      description: [
        'REST/JSON API for fleet tracking data. Every request carries `Authorization: Bearer <token>`.',
        'Units: speed in km/h, heading in degrees clockwise from true north, positions in decimal degrees (WGS84), times ISO 8601 UTC.',
        'Rate limits are counted per token: 60 requests per minute shared by the read endpoints, 60 per minute shared by the write endpoints (units, geofences, drivers, rules, settings, acknowledging alerts), 10 per minute shared by the commands (locate and the others). Every limited response carries X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset (when the window resets, as a Unix time in seconds), RateLimit (whose `t` is the seconds until then) and RateLimit-Policy; a 429 carries Retry-After.',
        'Errors are `{ "error": "<message>", "code": "<code>" }`. When the tracking backend does not answer, the API answers 502.',
      ].join('\n\n'),
      contact: { name: 'The operator of this service', url: opts.publicBaseUrl },
      license: { name: 'Proprietary: use is governed by your agreement with the operator' },
    },
    servers: [{ url: opts.publicBaseUrl, description: 'This deployment' }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    components: {
      schemas,
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Scopes: read, write, commands' },
        inboundSecret: { type: 'apiKey', in: 'query', name: 'secret', description: "The inbound webhook's secret, shown once when it was created" },
      },
    },
    security: [{ bearer: [] }],
    paths: paths(),
  };
}
