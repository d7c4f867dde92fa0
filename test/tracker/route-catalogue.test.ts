// The route catalogue and what derives from it: the tracker refuses to start with a handler missing or
// extra, and the served OpenAPI document names, tags and describes every operation as clients and
// their generators need it.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { OPERATIONS, TAGS } from '../../shared/catalogue.js';
import { bindOperations, type Handlers } from '../../tracker/api/operations.js';
import { startTrackerFixture, type TrackerFixture } from '../helpers/tracker-app.js';

const BASE_URL = 'https://fleet.example.com';

type Schema = Record<string, unknown>;
interface Document {
  info: { contact?: { name?: string; url?: string }; license?: { name?: string } };
  servers?: { url: string }[];
  tags?: { name: string; description: string }[];
  components: { schemas: Record<string, Schema> };
  paths: Record<string, Record<string, { operationId?: string; tags?: string[]; responses: Record<string, { headers?: Record<string, { description: string }>; content?: Record<string, { schema: Schema }> }> }>>;
}

let f: TrackerFixture;
let doc: Document;

beforeAll(async () => {
  f = await startTrackerFixture('pglite', { PUBLIC_BASE_URL: BASE_URL });
  const res = await f.as('acc_none').get('/api-docs/openapi.json');
  expect(res.status).toBe(200);
  doc = res.body as Document;
}, 120_000); // a tracker starting on a busy CI machine
afterAll(() => f?.close());

describe('binding handlers by operationId', () => {
  const noop: Handlers[string] = (_req, res) => void res.end();
  const all = (): Handlers => Object.fromEntries(OPERATIONS.map((o) => [o.operationId, noop]));

  it('binds a handler to every operation', () => {
    expect(() => bindOperations(OPERATIONS, all())).not.toThrow();
  });

  it('refuses a missing handler, naming the operation', () => {
    const { listDevices: _gone, ...handlers } = all();
    expect(() => bindOperations(OPERATIONS, handlers)).toThrow(/no handler for listDevices/);
  });

  it('refuses a handler for no operation, naming it', () => {
    expect(() => bindOperations(OPERATIONS, { ...all(), listTrucks: noop })).toThrow(/handlers for no operation: listTrucks/);
  });

  it('refuses an operationId used twice', () => {
    expect(() => bindOperations([...OPERATIONS, OPERATIONS[0]!], all())).toThrow(/used twice: listDevices/);
  });
});

describe('the served OpenAPI document', () => {
  it('has every catalogue operation, with its operationId and one of the declared tags', () => {
    const tags = Object.keys(TAGS);
    expect(doc.tags?.map((t) => t.name)).toEqual(tags);
    for (const op of OPERATIONS) {
      const documented = doc.paths[op.path]?.[op.method.toLowerCase()];
      expect(documented).toMatchObject({ operationId: op.operationId, tags: [op.tag] });
    }
    const ids = Object.values(doc.paths).flatMap((p) => Object.values(p).map((o) => o.operationId));
    expect(ids.sort()).toEqual(OPERATIONS.map((o) => o.operationId).sort());
    for (const tag of ['devices', 'positions', 'commands', 'alerts and events', 'geofences', 'drivers', 'rules', 'records', 'inbound']) expect(tags).toContain(tag);
  });

  it('names the server from PUBLIC_BASE_URL, a contact and a license', () => {
    expect(doc.servers).toEqual([expect.objectContaining({ url: BASE_URL })]);
    expect(doc.info.contact?.url).toBe(BASE_URL);
    expect(doc.info.license?.name).toEqual(expect.any(String));
  });

  it('gives no component schema a fragment $id, and every $ref resolves to a component', () => {
    for (const [name, schema] of Object.entries(doc.components.schemas)) expect([name, schema.$id]).toEqual([name, undefined]);
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(20);
    for (const ref of new Set(refs)) expect(doc.components.schemas).toHaveProperty([ref]);
  });

  it('documents GET /devices with its page parameters and nextCursor, which comes only with `limit`', () => {
    const get = doc.paths['/api/public/v1/devices']!.get! as unknown as { parameters: { name: string }[]; description: string };
    const schema = doc.paths['/api/public/v1/devices']!.get!.responses['200']!.content!['application/json']!.schema as { properties: Record<string, unknown> };
    expect(Object.keys(schema.properties)).toEqual(['data', 'nextCursor']);
    expect(get.parameters.map((p) => p.name)).toEqual(['limit', 'cursor']);
    expect(get.description).toMatch(/Without `limit`, every unit/);
  });

  it('documents X-RateLimit-Reset as an epoch time and RateLimit as seconds until the reset', () => {
    const headers = doc.paths['/api/public/v1/alerts']!.get!.responses['200']!.headers!;
    expect(headers['X-RateLimit-Reset']!.description).toMatch(/Unix epoch/);
    expect(headers.RateLimit!.description).toMatch(/t=<seconds until the window resets>/);
  });

  it('describes request bodies inline, with the fields that have defaults optional', () => {
    const body = (path: string, method: string) => (doc.paths[path]![method] as unknown as { requestBody: { content: Record<string, { schema: Schema }> } }).requestBody.content['application/json']!.schema;
    expect(body('/api/public/v1/drivers', 'post').required).toEqual(['name']);
    expect(body('/api/public/v1/geofences/{id}', 'put').required).toEqual(['name', 'shape']);
    expect(body('/api/public/v1/rules', 'post').required).toEqual(['name', 'severity', 'condition']);
    expect(JSON.stringify(doc)).not.toContain('#/$defs/');
    for (const input of ['DriverInput', 'GeofenceInput', 'RuleInput']) expect(doc.components.schemas).not.toHaveProperty([input]);
  });
});
