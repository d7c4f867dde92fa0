// The tracker's public API (as the gateway forwards it): every endpoint, every 400, paging,
// streaming and account isolation; every response checked against the OpenAPI document.
import { describe, expect, test, beforeAll, afterAll } from '@jest/globals';
import { insertAlert } from '../../tracker/alerts/repository.js';
import { insertPositions } from '../../tracker/positions/repository.js';
import { assertMatchesDocument } from '../helpers/openapi.js';
import { startTrackerFixture, type TrackerFixture } from '../helpers/tracker-app.js';

let f: TrackerFixture;
let acme: string;
let other: string;
let van: string;
let idle: string;
let foreign: string;
const T0 = Date.parse('2026-11-20T08:00:00Z');

async function ok(method: 'get' | 'post', template: string, path: string, account = acme, status = 200) {
  const res = await f.as(account)[method](path);
  expect(res.status).toBe(status);
  assertMatchesDocument(method, template, status, res.body);
  return res;
}

beforeAll(async () => {
  f = await startTrackerFixture('postgres');
  acme = await f.account('Acme');
  other = await f.account('Other');
  van = await f.device(acme, '359633100000101', 'Van');
  idle = await f.device(acme, '359633100000102', 'Idle');
  foreign = await f.device(other, '359633100000201', 'Foreign');
  const positions = Array.from({ length: 120 }, (_, i) => ({
    deviceTime: new Date(T0 + i * 60_000), valid: true, lat: 52 + i / 1000, lng: 13 + i / 1000, speed: 40 + (i % 10), heading: (i * 3) % 360, attributes: {},
  }));
  await insertPositions(f.tracker.ctx.db, positions.map((position) => ({ deviceId: van, position })));
  await f.tracker.ctx.db.query("UPDATE devices SET last_lat = 52.119, last_lng = 13.119, last_speed = 49, last_update = $2, status = 'online' WHERE id = $1", [van, new Date(T0 + 119 * 60_000)]);
  for (let i = 0; i < 5; i++) await insertAlert(f.tracker.ctx.db, { accountId: acme, deviceId: van, type: 'speeding', severity: 'warning', message: `Speeding ${i}` });
  await insertAlert(f.tracker.ctx.db, { accountId: other, deviceId: foreign, type: 'sos', severity: 'critical', message: 'SOS' });
});
afterAll(() => f.close());

describe('devices', () => {
  test('lists the account’s devices with the spec’s fields and their latest telemetry only', async () => {
    const res = await ok('get', '/api/public/v1/devices', '/api/public/v1/devices');
    expect(res.body.data).toHaveLength(2);
    const v = res.body.data.find((d: { id: string }) => d.id === van);
    expect(v).toEqual({ id: van, name: 'Van', plate: '', imei: '359633100000101', status: 'online', speed: 49, position: { lat: 52.119, lng: 13.119 }, lastUpdate: '2026-11-20T09:59:00.000Z', telemetry: {} });
    const i = res.body.data.find((d: { id: string }) => d.id === idle);
    expect(i).toMatchObject({ status: 'offline', speed: 0, position: null, lastUpdate: null });
    expect(res.headers['cache-control']).toBe('no-store');
  });

  test('one device; another account’s or a malformed id is 404', async () => {
    await ok('get', '/api/public/v1/devices/{id}', `/api/public/v1/devices/${van}`);
    for (const id of [foreign, 'nope', '%27%20or%201=1']) {
      const res = await ok('get', '/api/public/v1/devices/{id}', `/api/public/v1/devices/${id}`, acme, 404);
      expect(res.body.error).toMatch(/no device/);
    }
  });
});

describe('positions', () => {
  const path = (q: string) => `/api/public/v1/devices/${van}/positions?${q}`;
  const T = '/api/public/v1/devices/{id}/positions';

  test('a range, oldest first, in km/h and degrees', async () => {
    const res = await ok('get', T, path('from=2026-11-20T08:00:00Z&to=2026-11-20T08:09:00Z'));
    expect(res.body.data).toHaveLength(10);
    expect(res.body.data[0]).toEqual({ lat: 52, lng: 13, speed: 40, heading: 0, timestamp: '2026-11-20T08:00:00.000Z' });
    expect(res.body.data.map((p: { timestamp: string }) => p.timestamp)).toEqual([...res.body.data.map((p: { timestamp: string }) => p.timestamp)].sort());
  });

  test('from defaults to 24 hours before to', async () => {
    const res = await ok('get', T, path('to=2026-11-21T08:30:00%2B00:00'));
    expect(res.body.data).toHaveLength(90); // 08:30 the day before onwards
  });

  test('pages with an opaque cursor until nextCursor is null', async () => {
    const seen: string[] = [];
    let cursor = '';
    for (let pages = 0; pages < 10; pages++) {
      const res = await ok('get', T, path(`from=2026-11-20T00:00:00Z&to=2026-11-20T23:00:00Z&limit=50${cursor ? `&cursor=${cursor}` : ''}`));
      seen.push(...res.body.data.map((p: { timestamp: string }) => p.timestamp));
      if (res.body.nextCursor === null) break;
      cursor = res.body.nextCursor;
    }
    expect(seen).toHaveLength(120);
    expect(new Set(seen).size).toBe(120);
  });

  test.each([
    ['from=yesterday', /"from": must be an ISO 8601 timestamp with a time zone/],
    ['from=2026-11-20T08:00:00', /"from": must be an ISO 8601 timestamp with a time zone/],
    ['to=2026-13-01T00:00:00Z', /"to"/],
    ['from=2026-11-20T10:00:00Z&to=2026-11-20T09:00:00Z', /"from" must not be later than "to"/],
    ['from=2026-01-01T00:00:00Z&to=2026-11-20T00:00:00Z', /at most 90 days/],
    ['limit=0', /"limit": must be a whole number from 1 to 10000/],
    ['limit=10001', /"limit"/],
    ['limit=abc', /"limit"/],
    ['cursor=garbage', /"cursor"/],
  ])('400 for %s', async (q, message) => {
    const res = await ok('get', T, path(q), acme, 400);
    expect(res.body.error).toMatch(message);
  });

  test('another account’s device is 404', async () => {
    await ok('get', T, `/api/public/v1/devices/${foreign}/positions`, acme, 404);
  });
});

describe('alerts', () => {
  const T = '/api/public/v1/alerts';
  test('open alerts by default, newest first, own account only', async () => {
    const res = await ok('get', T, T);
    expect(res.body.data.map((a: { message: string }) => a.message)).toEqual(['Speeding 4', 'Speeding 3', 'Speeding 2', 'Speeding 1', 'Speeding 0']);
    expect(res.body.data[0]).toMatchObject({ type: 'speeding', severity: 'warning', deviceId: van });
    expect(Number.isInteger(res.body.data[0].id)).toBe(true);
    const theirs = await ok('get', T, T, other);
    expect(theirs.body.data.map((a: { type: string }) => a.type)).toEqual(['sos']);
    expect((await ok('get', T, `${T}?status=acknowledged`)).body.data).toEqual([]);
  });

  test('pages', async () => {
    const first = await ok('get', T, `${T}?limit=3`);
    expect(first.body.data).toHaveLength(3);
    const second = await ok('get', T, `${T}?limit=3&cursor=${first.body.nextCursor}`);
    expect(second.body.data.map((a: { message: string }) => a.message)).toEqual(['Speeding 1', 'Speeding 0']);
    expect(second.body.nextCursor).toBeNull();
  });

  test.each([['status=closed', /"status": must be one of open, acknowledged/], ['since=last-week', /"since"/]])('400 for %s', async (q, message) => {
    expect((await ok('get', T, `${T}?${q}`, acme, 400)).body.error).toMatch(message);
  });
});

describe('locate and commands', () => {
  test('queues a command whose status can be read back', async () => {
    const res = await ok('post', '/api/public/v1/devices/{id}/locate', `/api/public/v1/devices/${van}/locate`);
    expect(res.body).toEqual({ ok: true, queued: true, commandId: expect.stringMatching(/^cmd_/) });
    const status = await ok('get', '/api/public/v1/devices/{id}/commands/{commandId}', `/api/public/v1/devices/${van}/commands/${res.body.commandId}`);
    expect(status.body).toMatchObject({ id: res.body.commandId, deviceId: van, type: 'locate', status: 'queued', sentAt: null, position: null });
    // Another account can see neither the command nor the device.
    await ok('get', '/api/public/v1/devices/{id}/commands/{commandId}', `/api/public/v1/devices/${van}/commands/${res.body.commandId}`, other, 404);
  });

  test('a body must be a JSON object', async () => {
    for (const body of ['[1]', '"x"', '{bad', '42']) {
      const res = await f.as(acme).post(`/api/public/v1/devices/${van}/locate`).set('content-type', 'application/json').send(body);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('the body must be a JSON object');
    }
    const fine = await f.as(acme).post(`/api/public/v1/devices/${van}/locate`).send({ note: 'x' });
    expect(fine.status).toBe(200);
  });

  test('409 for a protocol without a locate command; 404 for another account', async () => {
    await f.tracker.ctx.db.query("UPDATE devices SET protocol = 'h02' WHERE id = $1", [idle]);
    const res = await ok('post', '/api/public/v1/devices/{id}/locate', `/api/public/v1/devices/${idle}/locate`, acme, 409);
    expect(res.body.error).toMatch(/H02, which has no locate command/);
    await ok('post', '/api/public/v1/devices/{id}/locate', `/api/public/v1/devices/${foreign}/locate`, acme, 404);
  });

  test('the tracker re-checks scopes', async () => {
    const res = await f.as(acme, 'read').post(`/api/public/v1/devices/${van}/locate`);
    expect(res.status).toBe(403);
  });
});

describe('OpenAPI', () => {
  test('the document and the page are served', async () => {
    const doc = await f.as(acme).get('/api-docs/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe('3.1.0');
    expect(Object.keys(doc.body.paths)).toEqual(expect.arrayContaining(['/api/public/v1/devices', '/api/public/v1/alerts']));
    const page = await f.as(acme).get('/api-docs');
    expect(page.text).toContain('swagger-ui-bundle.js');
    const asset = await f.as(acme).get('/api-docs/assets/swagger-ui-bundle.js');
    expect(asset.status).toBe(200);
  });
});

describe('streaming', () => {
  test('a large range streams every row in order', async () => {
    const big = await f.device(acme, '359633100000103', 'Streamer');
    const start = Date.parse('2026-10-01T00:00:00Z');
    for (let chunk = 0; chunk < 6; chunk++) {
      const rows = Array.from({ length: 5000 }, (_, i) => ({
        deviceTime: new Date(start + (chunk * 5000 + i) * 5000), valid: true, lat: 50, lng: 10, speed: 1, heading: 2, attributes: {},
      }));
      await insertPositions(f.tracker.ctx.db, rows.map((position) => ({ deviceId: big, position })));
    }
    const res = await ok('get', '/api/public/v1/devices/{id}/positions', `/api/public/v1/devices/${big}/positions?from=2026-10-01T00:00:00Z&to=2026-10-31T00:00:00Z`);
    expect(res.body.data).toHaveLength(30000);
    expect(res.body.data[29999].timestamp).toBe(new Date(start + 29999 * 5000).toISOString());
    expect(res.body.nextCursor).toBeUndefined();
    const empty = await ok('get', '/api/public/v1/devices/{id}/positions', `/api/public/v1/devices/${big}/positions?from=2025-10-01T00:00:00Z&to=2025-10-31T00:00:00Z`);
    expect(empty.text).toBe('{"data":[]}');
  });
});

describe('large device lists', () => {
  test('are served from a snapshot refreshed in the background', async () => {
    const big = await startTrackerFixture('postgres', { DEVICE_LIST_SNAPSHOT_MS: '300' });
    try {
      const fleet = await big.account('Fleet');
      await big.tracker.ctx.db.query(
        `INSERT INTO devices (id, account_id, imei, name) SELECT 'dev_big' || i, $1, '86' || lpad(i::text, 13, '0'), 'Unit ' || i FROM generate_series(1, 1000) AS i`,
        [fleet],
      );
      const names = async () => ((await big.as(fleet).get('/api/public/v1/devices')).body.data as { id: string; name: string }[]).map((d) => d.name);
      const first = await names();
      expect(first).toHaveLength(1000);
      const renamed = 'Tanker "7" \\ Süd <1>';
      await big.tracker.ctx.db.query("UPDATE devices SET name = $1 WHERE id = 'dev_big1'", [renamed]);
      expect(await names()).toEqual(first); // the snapshot, at most 300 ms old
      await new Promise((r) => setTimeout(r, 350));
      let latest = await names(); // the stale snapshot, while the refresh runs
      for (let i = 0; i < 40 && !latest.includes(renamed); i++) {
        await new Promise((r) => setTimeout(r, 50));
        latest = await names();
      }
      expect(latest).toContain(renamed);
    } finally {
      await big.close();
    }
  });

  test('under the size for snapshots, a list is current at once', async () => {
    await f.tracker.ctx.db.query('UPDATE devices SET name = $1 WHERE id = $2', ['Idle "2"', idle]);
    const res = await ok('get', '/api/public/v1/devices', '/api/public/v1/devices');
    expect(res.body.data.find((d: { id: string }) => d.id === idle).name).toBe('Idle "2"');
  });
});
