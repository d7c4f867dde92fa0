// A unit's going offline is announced only once it has stayed offline for the grace period: a GT06
// over real TCP that drops and reconnects within it raises no events; one that stays away raises
// device_offline once, however many tracker processes sweep at the same moment.
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { createLogger } from '../../shared/logger.js';
import { EventEngine } from '../../tracker/events/engine.js';
import { DeviceConnections } from '../../tracker/ingest/connections.js';
import { gt06Login } from '../../tracker/simulator/frames/gt06.js';
import { DeviceClient, eventually } from '../helpers/device-client.js';
import { assertMatchesDocument } from '../helpers/openapi.js';
import { startTrackerFixture, type TrackerFixture } from '../helpers/tracker-app.js';

const GRACE_SECONDS = 2;
let f: TrackerFixture;
let account: string;

beforeAll(async () => {
  f = await startTrackerFixture('postgres', { DEVICE_OFFLINE_GRACE_SECONDS: String(GRACE_SECONDS) });
  account = await f.account('Fleet');
});
afterAll(() => f.close());

/** A GET of the public API, its answer checked against the OpenAPI document. */
async function get(template: string, path: string) {
  const res = await f.as(account).get(path);
  assertMatchesDocument('get', template, 200, res.body);
  return res.body as Record<string, unknown>;
}
const typesOf = async (deviceId: string) =>
  ((await get('/api/public/v1/events', `/api/public/v1/events?deviceId=${deviceId}`)).data as { type: string }[]).map((e) => e.type).reverse();
const status = async (deviceId: string) => (await get('/api/public/v1/devices/{id}', `/api/public/v1/devices/${deviceId}`)).status as string;

async function connect(imei: string): Promise<DeviceClient> {
  const d = await DeviceClient.open(f.tracker.ingest.ports.device!);
  d.send(gt06Login(imei, 1));
  await d.read(10); // the login ACK: the unit is recorded online
  return d;
}

test('a unit that reconnects within the grace period raises no events; one that stays away, device_offline once', async () => {
  const id = await f.device(account, '359633100000901', 'Flaky');
  (await connect('359633100000901')).close();
  await eventually(() => status(id), (s) => s === 'offline');
  const back = await connect('359633100000901');
  expect(await status(id)).toBe('online');
  back.close();
  await eventually(() => status(id), (s) => s === 'offline');
  const left = Date.now();
  // Offline as the devices list says, but not yet announced.
  await new Promise((r) => setTimeout(r, (GRACE_SECONDS * 1000) / 2));
  expect(await typesOf(id)).toEqual(['device_online']);
  const types = await eventually(() => typesOf(id), (t) => t.length > 1, GRACE_SECONDS * 1000 + 5000);
  expect(Date.now() - left).toBeGreaterThanOrEqual(GRACE_SECONDS * 1000);
  expect(types).toEqual(['device_online', 'device_offline']);
  // Back after that: announced again.
  (await connect('359633100000901')).close();
  expect(await eventually(() => typesOf(id), (t) => t.length > 2)).toEqual(['device_online', 'device_offline', 'device_online']);
});

test('processes sweeping at the same moment announce each unit once', async () => {
  const ids = await Promise.all(Array.from({ length: 20 }, (_, i) => f.device(account, `3596331000010${String(i).padStart(2, '0')}`, `Unit ${i}`)));
  await f.tracker.ctx.db.query(
    "UPDATE devices SET status = 'offline', status_since = now() - interval '1 hour', announced_status = 'online' WHERE id = ANY($1)",
    [ids],
  );
  // Two more processes' connection registries on the same database, besides the tracker's own sweep.
  const engine = new EventEngine([]);
  const others = [0, 1].map(() => new DeviceConnections(f.tracker.ctx.db, createLogger('tracker', 'silent'), engine));
  await Promise.all(others.flatMap((s) => [s.announceOffline(0), s.announceOffline(0), s.announceOffline(0)]));
  await eventually(async () => (await f.tracker.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM devices WHERE id = ANY($1) AND announced_status = 'offline'", [ids]))[0]!.n, (n) => n === 20);
  for (const id of ids) expect(await typesOf(id)).toEqual(['device_offline']);
});
