// Events through the real ingest path on PostgreSQL: judged in the batch transaction with the
// positions, handed to the listeners there (a failing listener rolls the batch back), listed by
// GET /events, and their alerts acknowledged. Every response is checked against the OpenAPI document.
import { describe, expect, test, beforeAll, afterAll } from '@jest/globals';
import type { EventListener, StoredEvent } from '../../tracker/events/types.js';
import type { LiveConnection } from '../../tracker/ingest/connections.js';
import { insertPositions } from '../../tracker/positions/repository.js';
import type { Telemetry } from '../../tracker/positions/telemetry.js';
import type { DecodedPosition } from '../../tracker/protocols/types.js';
import { assertMatchesDocument } from '../helpers/openapi.js';
import { startTrackerFixture, type TrackerFixture } from '../helpers/tracker-app.js';

let f: TrackerFixture;
let acme: string;
let other: string;
let van: string;
let foreign: string;
const V1 = '/api/public/v1';
const T0 = Math.floor(Date.now() / 1000) * 1000 - 3_600_000;
const seen: StoredEvent[] = [];

const fix = (s: number, speed: number, attributes: Telemetry = {}, lat = 52.52, lng = 13.405): DecodedPosition => ({
  deviceTime: new Date(T0 + s * 1000), valid: true, lat, lng, speed, heading: 90, attributes,
});
const store = (deviceId: string, ...positions: DecodedPosition[]) => f.tracker.ingest.deps.batcher.add(positions.map((position) => ({ deviceId, position })));

async function get(template: string, path: string, expected = 200, account = acme) {
  const res = await f.as(account).get(path);
  expect({ status: res.status, body: res.body }).toMatchObject({ status: expected });
  assertMatchesDocument('get', template, expected, res.body);
  return res;
}
const events = async (query = '', account = acme) => (await get(`${V1}/events`, `${V1}/events${query}`, 200, account)).body.data as { id: number; type: string; deviceId: string; position: { timestamp: string } | null; alert: { id: number; severity: string; message: string } | null; data: Record<string, unknown> }[];

beforeAll(async () => {
  f = await startTrackerFixture('postgres');
  acme = await f.account('Acme');
  other = await f.account('Other');
  van = await f.device(acme, '359633100000701', 'Van 7');
  foreign = await f.device(other, '359633100000702', 'Foreign');
  // Listeners see the events inside the transaction that stored them.
  f.tracker.onEvents.push(async (tx, stored) => {
    const rows = await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE id = ANY($1)', [stored.map((e) => e.id)]);
    expect(rows[0]!.n).toBe(stored.length);
    seen.push(...stored);
  });
});
afterAll(() => f.close());

describe('judged with the positions', () => {
  test('speeding: one event with its position and a warning alert, handed to the listeners', async () => {
    await store(van, fix(0, 120), fix(3, 125), fix(6, 130), fix(9, 128));
    const list = await events('?type=speeding');
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({
      type: 'speeding', deviceId: van,
      position: { lat: 52.52, lng: 13.405, speed: 130, heading: 90, timestamp: new Date(T0 + 6000).toISOString() },
      alert: { severity: 'warning', message: 'Van 7 is speeding: 130 km/h (limit 90 km/h)' },
      data: { speed: 130, speedLimit: 90 },
    });
    expect(seen.map((e) => e.id)).toContain(list[0]!.id);
    const alerts = (await get(`${V1}/alerts`, `${V1}/alerts`)).body.data;
    expect(alerts).toContainEqual(expect.objectContaining({ id: list[0]!.alert!.id, type: 'speeding', severity: 'warning', deviceId: van, status: 'open' }));
  });

  test('a listener that throws rolls the batch back: no positions, no events, no ACK', async () => {
    const failing: EventListener = async () => {
      throw new Error('listener down');
    };
    f.tracker.onEvents.push(failing);
    try {
      await expect(store(van, fix(100, 20, { alarm: 'sos' }))).rejects.toThrow('listener down');
    } finally {
      f.tracker.onEvents.splice(f.tracker.onEvents.indexOf(failing), 1);
    }
    expect(await events('?type=sos')).toEqual([]);
    const history = await f.as(acme).get(`${V1}/devices/${van}/positions?from=${new Date(T0 + 99_000).toISOString()}&to=${new Date(T0 + 101_000).toISOString()}`);
    expect(history.body.data).toEqual([]);
    // The device re-sends and this time it goes through.
    await store(van, fix(100, 20, { alarm: 'sos' }));
    expect(await events('?type=sos')).toMatchObject([{ type: 'sos', alert: { severity: 'critical', message: 'SOS from Van 7' } }]);
  });

  test('only records new to the database are judged (a re-sent batch is stored and judged once)', async () => {
    const rows = [fix(200, 10), fix(201, 10)].map((position) => ({ deviceId: foreign, position }));
    expect(await insertPositions(f.tracker.ctx.db, rows)).toHaveLength(2);
    expect(await insertPositions(f.tracker.ctx.db, rows)).toHaveLength(0);
    expect(await insertPositions(f.tracker.ctx.db, [...rows, { deviceId: foreign, position: fix(202, 10) }, { deviceId: foreign, position: fix(202, 11) }])).toEqual([{ deviceId: foreign, position: fix(202, 10) }]);
  });

  test('a geofence created or moved through the API applies from the next batch', async () => {
    const where = { lat: 52.6, lng: 13.6 };
    const created = await f.as(acme).post(`${V1}/geofences`).send({ name: 'Depot', shape: { type: 'circle', center: where, radius: 100 } });
    expect(created.status).toBe(201);
    await store(van, fix(300, 10, {}, where.lat, where.lng));
    await f.as(acme).put(`${V1}/geofences/${created.body.id}`).send({ name: 'Depot', shape: { type: 'circle', center: { lat: 52.7, lng: 13.6 }, radius: 100 } });
    await store(van, fix(310, 10, {}, where.lat, where.lng));
    const list = await events('?type=geofence_enter');
    expect(list).toMatchObject([{ data: { geofenceId: created.body.id, geofenceName: 'Depot' }, alert: null }]);
    expect(await events('?type=geofence_exit')).toMatchObject([{ position: { timestamp: new Date(T0 + 310_000).toISOString() } }]);
  });

  test('online and offline come from the device connections; offline only once the grace period is over', async () => {
    const conn: LiveConnection = { protocol: 'gt06', write: null, close: () => undefined };
    const { connections } = f.tracker.ingest.deps;
    const types = async () => (await events(`?deviceId=${van}&limit=10`)).filter((e) => e.type.startsWith('device_')).map((e) => e.type);
    await connections.attach(van, 'gt06', conn);
    // A second connection on another protocol is not news.
    await connections.attach(van, 'teltonika', { ...conn, protocol: 'teltonika' });
    await connections.detach(van, conn);
    // Reconnecting within the grace period (120 s here) is not news either, either way.
    await connections.attach(van, 'gt06', conn);
    await connections.detach(van, conn);
    expect(await connections.announceOffline(120)).toBe(0);
    expect(await types()).toEqual(['device_online']);
    // Past it, the offline is announced once.
    expect(await connections.announceOffline(0)).toBe(1);
    expect(await connections.announceOffline(0)).toBe(0);
    const list = await events(`?deviceId=${van}&limit=2`);
    expect(list.map((e) => e.type)).toEqual(['device_offline', 'device_online']);
    expect(list[0]!.alert).toMatchObject({ severity: 'warning', message: 'Van 7 went offline' });
    expect(list[1]!.alert).toBeNull();
    // The last known position comes with them.
    expect(list[0]!.position).toMatchObject({ timestamp: new Date(T0 + 310_000).toISOString() });
    // Back after an announced offline: announced online again.
    await connections.attach(van, 'gt06', conn);
    expect(await types()).toEqual(['device_online', 'device_offline', 'device_online']);
    await connections.detach(van, conn);
  });
});

describe('GET /events', () => {
  const T = `${V1}/events`;

  test('newest first, filtered by type, unit and time, paged by cursor', async () => {
    const all = await events();
    expect(all.length).toBeGreaterThanOrEqual(6);
    expect(all.map((e) => e.id)).toEqual([...all.map((e) => e.id)].sort((a, b) => b - a));
    const pages: number[] = [];
    let cursor = '';
    for (let i = 0; i < 10; i++) {
      const res = await get(T, `${T}?limit=2${cursor}`);
      pages.push(...res.body.data.map((e: { id: number }) => e.id));
      if (res.body.nextCursor === null) break;
      cursor = `&cursor=${res.body.nextCursor}`;
    }
    expect(pages).toEqual(all.map((e) => e.id));
    expect((await get(T, `${T}?since=${new Date(Date.now() + 60_000).toISOString()}`)).body.data).toEqual([]);
    expect((await events(`?deviceId=${van}`)).every((e) => e.deviceId === van)).toBe(true);
  });

  test('each account sees its own only; another account’s unit is a 404', async () => {
    await store(foreign, fix(400, 10, { alarm: 'sos' }));
    expect((await events('', other)).map((e) => e.type)).toEqual(['sos']);
    expect((await events()).some((e) => e.deviceId === foreign)).toBe(false);
    await get(T, `${T}?deviceId=${foreign}`, 404);
  });

  test.each<[string, RegExp]>([
    ['type=parking', /"type": must be one of sos, speeding/],
    ['since=yesterday', /"since": must be an ISO 8601 timestamp/],
    ['limit=0', /"limit": must be a whole number/],
    ['limit=abc', /"limit"/],
    ['cursor=bm90IGEgY3Vyc29y', /"cursor": not a cursor this API returned/],
  ])('400 for %s', async (query, message) => {
    expect((await get(T, `${T}?${query}`, 400)).body.error).toMatch(message);
  });
});

describe('acknowledging alerts', () => {
  const ACK = `${V1}/alerts/{id}/acknowledge`;
  const ack = (id: string | number, account = acme, scopes?: string) => f.as(account, scopes).post(`${V1}/alerts/${id}/acknowledge`);

  test('open → acknowledged, once: acknowledging again answers the same', async () => {
    const [sos] = await events('?type=sos');
    const first = await ack(sos!.alert!.id);
    expect(first.status).toBe(200);
    assertMatchesDocument('post', ACK, 200, first.body);
    expect(first.body).toMatchObject({ id: sos!.alert!.id, type: 'sos', severity: 'critical', status: 'acknowledged', acknowledgedAt: expect.any(String) });
    const again = await ack(sos!.alert!.id);
    expect(again.body).toEqual(first.body);
    const open = (await get(`${V1}/alerts`, `${V1}/alerts`)).body.data.map((a: { id: number }) => a.id);
    expect(open).not.toContain(sos!.alert!.id);
    const acknowledged = (await get(`${V1}/alerts`, `${V1}/alerts?status=acknowledged`)).body.data;
    expect(acknowledged).toEqual([first.body]);
  });

  test("another account's alert, a malformed id and an unknown one are 404; read scope is 403", async () => {
    const [theirs] = await events('?type=sos', other);
    for (const id of [theirs!.alert!.id, 'abc', '0', '99999999']) {
      const res = await ack(id);
      expect(res.status).toBe(404);
      assertMatchesDocument('post', ACK, 404, res.body);
    }
    expect((await events('?type=sos', other))[0]!.alert).toMatchObject({ id: theirs!.alert!.id });
    expect((await get(`${V1}/alerts`, `${V1}/alerts`, 200, other)).body.data.map((a: { id: number }) => a.id)).toContain(theirs!.alert!.id);
    expect((await ack(theirs!.alert!.id, other, 'read')).status).toBe(403);
  });
});
