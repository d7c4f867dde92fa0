// The OpenAPI 3.1 document, generated from the same zod schemas that validate requests and shape
// responses. Scopes, limits, their headers, every error and the units are documented here.
import { z } from 'zod';
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
        409: error("The device's protocol has no such command"),
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

function operation(summary: string, scope: string, limit: string, extra: object) {
  return { summary, description: `Scope: \`${scope}\`. Rate limit: ${limit} per token.`, security: [{ bearer: [scope] }], ...extra };
}

export function openApiDocument(): object {
  const { schemas } = z.toJSONSchema(z.globalRegistry, { uri: (id) => `#/components/schemas/${id}`, io: 'output' }) as { schemas: Record<string, Record<string, unknown>> };
  for (const s of Object.values(schemas)) delete s.$schema;
  return {
    openapi: '3.1.0',
    info: {
      title: 'Fleet tracking public API',
      version: '1',
      description: [
        'REST/JSON API for fleet tracking data. Every request carries `Authorization: Bearer <token>`.',
        'Units: speed in km/h, heading in degrees clockwise from true north, positions in decimal degrees (WGS84), times ISO 8601 UTC.',
        'Rate limits are counted per token: 60 requests per minute shared by the read endpoints, 10 per minute for locate. Every limited response carries X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, RateLimit and RateLimit-Policy; a 429 carries Retry-After.',
        'Errors are `{ "error": "<message>", "code": "<code>" }`. When the tracking backend does not answer, the API answers 502.',
      ].join('\n\n'),
    },
    components: {
      schemas,
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Scopes: read, write, commands' } },
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
    },
  };
}
