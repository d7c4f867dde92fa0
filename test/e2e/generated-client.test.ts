// An integrator's generated SDK works unchanged: openapi-typescript turns the served document into
// types, a small client program written against them is type-checked by tsc (a type error fails the
// test) and then runs a whole flow with openapi-fetch against real gateway and tracker processes:
// units, history, locate and the command's status, alerts, a geofence, and units provisioned, paged, changed and removed.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { insertAlert } from '../../tracker/alerts/repository.js';
import { insertPositions } from '../../tracker/positions/repository.js';
import { freePort } from '../helpers/ports.js';
import { startService, stopAllServices } from '../helpers/processes.js';
import { createStack, type Stack } from '../helpers/stack.js';

const run = promisify(execFile);
const bin = (name: string) => resolve('node_modules', '.bin', name);

/** The integrator's program: every call typed by the generated `paths`, with no cast. */
const CLIENT = `
import createClient from 'openapi-fetch';
import type { paths } from './schema.js';

const [baseUrl, token, deviceId] = process.argv.slice(2) as [string, string, string];
const api = createClient<paths>({ baseUrl, headers: { Authorization: \`Bearer \${token}\` } });

function must<T>(r: { data?: T; error?: unknown; response: Response }): T {
  if (r.data === undefined) throw new Error(\`\${r.response.url}: \${r.response.status} \${JSON.stringify(r.error)}\`);
  return r.data;
}

const units = must(await api.GET('/api/public/v1/devices'));
const unit = must(await api.GET('/api/public/v1/devices/{id}', { params: { path: { id: deviceId } } }));
const speed: number | null = unit.speed;
// The latest telemetry is typed per key: volts as a number, absent until the device reports it.
const power: number | undefined = unit.telemetry.power?.value;
const from = new Date(Date.now() - 3_600_000).toISOString();
const history = must(await api.GET('/api/public/v1/devices/{id}/positions', { params: { path: { id: deviceId }, query: { from, limit: 5 } } }));
const next: string | null | undefined = history.nextCursor;
const queued = must(await api.POST('/api/public/v1/devices/{id}/locate', { params: { path: { id: deviceId } } }));
const command = must(await api.GET('/api/public/v1/devices/{id}/commands/{commandId}', { params: { path: { id: deviceId, commandId: queued.commandId } } }));
const open = must(await api.GET('/api/public/v1/alerts', { params: { query: { status: 'open' } } }));
const first = open.data[0];
if (!first) throw new Error('no open alert');
const acknowledged = must(await api.POST('/api/public/v1/alerts/{id}/acknowledge', { params: { path: { id: String(first.id) } } }));
// A field with a default (description) may be left out.
const fence = must(await api.POST('/api/public/v1/geofences', { body: { name: 'Depot', shape: { type: 'circle', center: { lat: 52.52, lng: 13.405 }, radius: 150 } } }));
const again = must(await api.GET('/api/public/v1/geofences/{id}', { params: { path: { id: fence.id } } }));
const removed = await api.DELETE('/api/public/v1/geofences/{id}', { params: { path: { id: fence.id } } });
const gone = await api.GET('/api/public/v1/geofences/{id}', { params: { path: { id: fence.id } } });
// Units provisioned through the API: one, a bulk of two (one refused), a page, a change, a removal.
const truck = must(await api.POST('/api/public/v1/devices', { body: { name: 'Truck', imei: '359633100009012' } }));
const bulk = must(await api.POST('/api/public/v1/devices/bulk', { body: { devices: [{ name: 'Truck 2', imei: '359633100009013', plate: 'T-2' }, { name: 'Again', imei: '359633100009012' }] } }));
const statuses: number[] = bulk.results.map((r) => r.status);
const firstPage = must(await api.GET('/api/public/v1/devices', { params: { query: { limit: 2 } } }));
const renamed = must(await api.PATCH('/api/public/v1/devices/{id}', { params: { path: { id: truck.id } }, body: { name: 'Truck 1' } }));
const dropped = must(await api.DELETE('/api/public/v1/devices/{id}', { params: { path: { id: truck.id }, query: { positions: 'remove' } } }));

// The types are real, not any: these must not compile.
// @ts-expect-error no such path
void api.GET('/api/public/v1/trucks');
// @ts-expect-error a geofence needs a name
void api.POST('/api/public/v1/geofences', { body: { shape: { type: 'circle', center: { lat: 0, lng: 0 }, radius: 1 } } });
// @ts-expect-error a unit needs its identifier
void api.POST('/api/public/v1/devices', { body: { name: 'No id' } });
// @ts-expect-error status is open or acknowledged
void api.GET('/api/public/v1/alerts', { params: { query: { status: 'closed' } } });

console.log(JSON.stringify({
  units: units.data.map((u) => u.id),
  speed,
  power: power ?? null,
  positions: history.data.length,
  next: typeof next,
  queued: queued.queued,
  command: { id: command.id, type: command.type, status: command.status },
  acknowledged: acknowledged.status,
  fence: again.name,
  removed: removed.response.status,
  gone: [gone.response.status, gone.error?.code],
  units2: { created: truck.imei, bulk: [bulk.created, ...statuses], page: firstPage.data.length, next: typeof firstPage.nextCursor, renamed: renamed.name, dropped: dropped.positions },
}));
`;

let stack: Stack;
let dir: string;
let base: string;
let token: string;
let deviceId: string;

beforeAll(async () => {
  stack = await createStack();
  const tracker = await stack.startTracker();
  const gatewayPort = await freePort();
  base = `http://127.0.0.1:${gatewayPort}`;
  await startService('gateway/main.ts', { ...stack.gatewayEnv(tracker.port), GATEWAY_PORT: String(gatewayPort) }, { timeoutMs: 60_000 });
  const account = await stack.account('Acme');
  deviceId = await stack.device(account, '359633100009011');
  token = await stack.token(account, 'read,write,commands');
  const start = Date.now() - 30 * 60_000;
  await insertPositions(
    stack.admin.db,
    Array.from({ length: 12 }, (_, i) => ({ deviceId, position: { deviceTime: new Date(start + i * 60_000), valid: true, lat: 52.5, lng: 13.4 + i * 0.001, speed: 40, heading: 90, attributes: {} } })),
  );
  await stack.admin.db.query('UPDATE devices SET last_lat = 52.5, last_lng = 13.411, last_speed = 40, last_heading = 90, last_update = $2 WHERE id = $1', [deviceId, new Date(start + 11 * 60_000)]);
  await insertAlert(stack.admin.db, { accountId: account, deviceId, type: 'sos', severity: 'critical', message: 'SOS' });
  dir = mkdtempSync(join(resolve('test', 'artifacts'), 'generated-client-'));
  // The program resolves openapi-fetch as an integrator's project would, from its node_modules.
  symlinkSync(resolve('node_modules'), join(dir, 'node_modules'));
}, 120_000);

afterAll(async () => {
  await stopAllServices();
  await stack?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('generates types from the served document, compiles a client against them and runs a whole flow', async () => {
  const served = await fetch(`${base}/api-docs/openapi.json`);
  expect(served.status).toBe(200);
  writeFileSync(join(dir, 'openapi.json'), await served.text());
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  writeFileSync(join(dir, 'client.ts'), CLIENT);
  await run(bin('openapi-typescript'), [join(dir, 'openapi.json'), '--output', join(dir, 'schema.d.ts')]);

  const tsc = await run(bin('tsc'), ['--strict', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--skipLibCheck', '--types', 'node', '--outDir', join(dir, 'out'), join(dir, 'client.ts')], { cwd: dir }).catch(
    (err: { stdout?: string }) => ({ stdout: `tsc failed:\n${err.stdout ?? ''}` }),
  );
  expect(tsc.stdout).toBe('');

  const { stdout } = await run(process.execPath, [join(dir, 'out', 'client.js'), base, token, deviceId]);
  expect(JSON.parse(stdout)).toEqual({
    units: [deviceId],
    speed: 40,
    power: null,
    positions: 5,
    next: 'string',
    queued: true,
    command: { id: expect.any(String), type: 'locate', status: 'queued' },
    acknowledged: 'acknowledged',
    fence: 'Depot',
    removed: 204,
    gone: [404, 'not_found'],
    units2: { created: '359633100009012', bulk: [1, 201, 409], page: 2, next: 'string', renamed: 'Truck 1', dropped: 'removed' },
  });
}, 90_000);
