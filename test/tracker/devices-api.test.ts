// Units provisioned through the public API (as the gateway forwards it): create one or many, change,
// remove with or without the history, and the devices list's pages; isolation between accounts on
// every route, and every response checked against the OpenAPI document.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { insertAlert } from '../../tracker/alerts/repository.js';
import { createRule } from '../../tracker/custom-rules/repository.js';
import { assignDriver, createDriver } from '../../tracker/drivers/repository.js';
import { insertPositions } from '../../tracker/positions/repository.js';
import { assertMatchesDocument } from '../helpers/openapi.js';
import { startTrackerFixture, type TrackerFixture } from '../helpers/tracker-app.js';

let f: TrackerFixture;
let acme: string;
let other: string;
const V1 = '/api/public/v1';

type Method = 'get' | 'post' | 'patch' | 'delete';

/** Calls as the account, checks the status and that the body is what the document promises. */
async function call(account: string, method: Method, template: string, path: string, status: number, body?: object) {
  const req = f.as(account)[method](path);
  const res = body === undefined ? await req : await req.send(body);
  expect([res.status, res.body]).toEqual([status, expect.anything()]);
  assertMatchesDocument(method, template, status, res.body);
  return res;
}

const count = async (sql: string, params: unknown[]) => (await f.tracker.ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, params))[0]!.n;
const devicesOf = (account: string) => count('devices WHERE account_id = $1', [account]);

beforeAll(async () => {
  f = await startTrackerFixture('postgres');
  acme = await f.account('Acme');
  other = await f.account('Other');
});
afterAll(() => f.close());

describe('creating a unit', () => {
  test('201 with the unit as the list shows it; it is then listed', async () => {
    const res = await call(acme, 'post', `${V1}/devices`, `${V1}/devices`, 201, { name: ' Truck 1 ', imei: '359633100700001', plate: 'B-AC 1' });
    expect(res.body).toEqual({ id: expect.stringMatching(/^dev_/), name: 'Truck 1', plate: 'B-AC 1', imei: '359633100700001', status: 'offline', speed: 0, position: null, lastUpdate: null, telemetry: {} });
    const listed = await call(acme, 'get', `${V1}/devices`, `${V1}/devices`, 200);
    expect(listed.body.data.map((d: { id: string }) => d.id)).toContain(res.body.id);
  });

  test('another account creating the same identifier gets a 409 naming the identifier and nothing of its holder', async () => {
    const before = await devicesOf(other);
    const res = await call(other, 'post', `${V1}/devices`, `${V1}/devices`, 409, { name: 'Mine now', imei: '359633100700001' });
    expect(res.body).toEqual({ error: 'a device with identifier 359633100700001 already exists', code: 'conflict' });
    const text = JSON.stringify(res.body);
    for (const secret of [acme, 'Acme', 'Truck 1', 'B-AC 1', 'dev_']) expect(text).not.toContain(secret);
    expect(await devicesOf(other)).toBe(before);
  });

  test.each([
    [{ name: 'No id' }, /"imei": device identifier is required/],
    [{ name: 'Letters', imei: '35963310070000x' }, /"imei": device identifier must be 5 to 20 digits/],
    [{ name: 'Short', imei: '1234' }, /5 to 20 digits/],
    [{ name: 'Long', imei: '1'.repeat(21) }, /5 to 20 digits/],
    [{ name: '   ', imei: '359633100700009' }, /"name": device name must not be empty/],
    [{ name: 'x'.repeat(201), imei: '359633100700009' }, /"name": device name must be at most 200 characters/],
    [{ name: 'Plate', imei: '359633100700009', plate: 'P'.repeat(33) }, /"plate": plate must be at most 32 characters/],
    [{ name: 'Extra', imei: '359633100700009', owner: 'acc_x' }, /unknown field "owner"/],
  ])('refuses %j with a 400 naming the field, and creates nothing', async (body, message) => {
    const before = await devicesOf(acme);
    const res = await call(acme, 'post', `${V1}/devices`, `${V1}/devices`, 400, body);
    expect(res.body.error).toMatch(message);
    expect(await devicesOf(acme)).toBe(before);
  });

  test('a token without the write scope is refused', async () => {
    const res = await f.as(acme, 'read commands').post(`${V1}/devices`).send({ name: 'Nope', imei: '359633100700010' });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatch(/"write" scope/);
    expect(await count('devices WHERE imei = $1', ['359633100700010'])).toBe(0);
  });
});

describe('bulk create', () => {
  const path = `${V1}/devices/bulk`;

  test('valid items are created; invalid, taken and repeated ones are refused each with its reason', async () => {
    const taken = await f.device(other, '359633100710000', 'Theirs');
    const res = await call(acme, 'post', path, path, 200, {
      devices: [
        { name: 'Bulk A', imei: '359633100710001' },
        { name: 'Bulk B', imei: 'nope' },
        { name: 'Bulk C', imei: '359633100710000' },
        { name: 'Bulk D', imei: '359633100710003', plate: 'D-1' },
        { name: 'Bulk E', imei: '359633100710001' },
        'not an object',
        { name: 'Bulk G', imei: '359633100710007', colour: 'red' },
      ],
    });
    expect(res.body).toMatchObject({ created: 2, failed: 5 });
    const results = res.body.results as { index: number; status: number; error?: string; device?: { name: string; imei: string; plate: string } }[];
    expect(results.map((r) => [r.index, r.status])).toEqual([[0, 201], [1, 400], [2, 409], [3, 201], [4, 409], [5, 400], [6, 400]]);
    expect(results[0]!.device).toMatchObject({ name: 'Bulk A', imei: '359633100710001', plate: '' });
    expect(results[3]!.device).toMatchObject({ name: 'Bulk D', plate: 'D-1' });
    expect(results[1]!.error).toMatch(/invalid item field "imei"/);
    expect(results[2]!.error).toBe('a device with identifier 359633100710000 already exists');
    expect(results[4]!.error).toMatch(/repeated in this request \(item 0\)/);
    expect(results[5]!.error).toMatch(/must be a JSON object/);
    expect(results[6]!.error).toMatch(/unknown field "colour"/);
    expect(JSON.stringify(res.body)).not.toContain(taken);
    expect(JSON.stringify(res.body)).not.toContain('Theirs');
    expect(await count('devices WHERE imei = ANY($1)', [['359633100710001', '359633100710003']])).toBe(2);
    expect(await count('devices WHERE imei = $1 AND account_id = $2', ['359633100710000', other])).toBe(1);
  });

  test('up to 500 items in one call; 501, none, or no array is a 400 that creates nothing', async () => {
    const items = (n: number, base: number) => Array.from({ length: n }, (_, i) => ({ name: `Fleet ${i}`, imei: String(base + i) }));
    const before = await devicesOf(acme);
    for (const body of [{ devices: items(501, 359633100720000) }, { devices: [] }, { devices: 'x' }, {}, { devices: items(1, 359633100730000), more: 1 }]) {
      const res = await call(acme, 'post', path, path, 400, body);
      expect(res.body.error).toMatch(/devices|unknown field/);
    }
    expect(await devicesOf(acme)).toBe(before);
    const res = await call(acme, 'post', path, path, 200, { devices: items(500, 359633100740000) });
    expect(res.body).toMatchObject({ created: 500, failed: 0 });
    expect(await devicesOf(acme)).toBe(before + 500);
  });
});

describe('changing a unit', () => {
  let id: string;
  beforeAll(async () => {
    id = await f.device(acme, '359633100750001', 'Van');
    await f.device(acme, '359633100750002', 'Other van');
  });
  const T = `${V1}/devices/{id}`;

  test('name, plate and identifier change; fields left out stay', async () => {
    let res = await call(acme, 'patch', T, `${V1}/devices/${id}`, 200, { plate: 'K-1' });
    expect(res.body).toMatchObject({ id, name: 'Van', plate: 'K-1', imei: '359633100750001' });
    res = await call(acme, 'patch', T, `${V1}/devices/${id}`, 200, { name: 'Van 1', imei: '359633100750003' });
    expect(res.body).toMatchObject({ id, name: 'Van 1', plate: 'K-1', imei: '359633100750003' });
  });

  test('a taken identifier is a 409, an empty or bad patch a 400; nothing changes', async () => {
    const res = await call(acme, 'patch', T, `${V1}/devices/${id}`, 409, { name: 'Renamed', imei: '359633100750002' });
    expect(res.body.error).toBe('a device with identifier 359633100750002 already exists');
    expect((await call(acme, 'patch', T, `${V1}/devices/${id}`, 400, {})).body.error).toMatch(/at least one of name, imei, plate/);
    expect((await call(acme, 'patch', T, `${V1}/devices/${id}`, 400, { imei: '12' })).body.error).toMatch(/"imei"/);
    expect((await call(acme, 'patch', T, `${V1}/devices/${id}`, 400, { status: 'online' })).body.error).toMatch(/unknown field "status"/);
    const now = await call(acme, 'get', T, `${V1}/devices/${id}`, 200);
    expect(now.body).toMatchObject({ name: 'Van 1', imei: '359633100750003' });
  });

  test('another account cannot see, change or remove it: the same 404 as an unknown unit', async () => {
    for (const target of [id, 'dev_unknown']) {
      for (const [method, body] of [['get'], ['patch', { name: 'Hijacked' }], ['delete']] as [Method, object?][]) {
        const res = await call(other, method, T, `${V1}/devices/${target}`, 404, body);
        expect(res.body.error).toBe(`no device ${target}`);
      }
    }
    expect((await call(acme, 'get', T, `${V1}/devices/${id}`, 200)).body.name).toBe('Van 1');
  });
});

describe('removing a unit', () => {
  const T = `${V1}/devices/{id}`;
  const T0 = Date.parse('2026-11-20T08:00:00Z');

  /** A unit with history, a command, an alert, a driver and a rule naming it. */
  async function unitWithHistory(imei: string) {
    const id = await f.device(acme, imei, 'Doomed');
    const db = f.tracker.ctx.db;
    const positions = Array.from({ length: 5 }, (_, i) => ({ deviceTime: new Date(T0 + i * 60_000), valid: true, lat: 52, lng: 13, speed: 10, heading: 0, attributes: {} }));
    await insertPositions(db, positions.map((position) => ({ deviceId: id, position })));
    await insertAlert(db, { accountId: acme, deviceId: id, type: 'sos', severity: 'critical', message: 'SOS' });
    const queued = await f.as(acme).post(`${V1}/devices/${id}/commands`).send({ type: 'reboot' });
    expect(queued.status).toBe(200);
    const driver = await createDriver(db, acme, { name: 'Ann', phone: '', licenseNumber: '', uniqueId: null });
    await assignDriver(db, acme, id, driver.id);
    const rule = await createRule(db, acme, { name: 'Only it', enabled: true, severity: 'info', condition: { '>': [{ var: 'speed' }, 100] }, geofenceId: null, timeWindow: null, deviceIds: [id] });
    return { id, driver: driver.id, rule: rule.id };
  }

  test('positions=keep (the default) keeps the history and says so; what hangs off the unit goes', async () => {
    const { id, driver, rule } = await unitWithHistory('359633100760001');
    const res = await call(acme, 'delete', T, `${V1}/devices/${id}`, 200);
    expect(res.body).toEqual({ id, removed: true, positions: 'kept', positionsRemoved: 0 });
    expect(await count('positions WHERE device_id = $1', [id])).toBe(5);
    for (const table of ['commands', 'alerts', 'device_settings', 'device_rule_state']) expect([table, await count(`${table} WHERE device_id = $1`, [id])]).toEqual([table, 0]);
    await call(acme, 'get', T, `${V1}/devices/${id}`, 404);
    await call(acme, 'get', `${V1}/devices/{id}/positions`, `${V1}/devices/${id}/positions`, 404);
    // The driver is free again; the rule no longer names it and, naming nothing, is off rather than on for every unit.
    expect((await f.as(acme).get(`${V1}/drivers/${driver}`)).body.deviceId).toBeNull();
    expect((await f.as(acme).get(`${V1}/rules/${rule}`)).body).toMatchObject({ deviceIds: [], enabled: false });
    // The identifier is free for a new unit.
    await call(other, 'post', `${V1}/devices`, `${V1}/devices`, 201, { name: 'Reused', imei: '359633100760001' });
    await call(acme, 'delete', T, `${V1}/devices/${id}`, 404);
  });

  test('positions=remove deletes the history with the unit and counts it', async () => {
    const { id } = await unitWithHistory('359633100760002');
    const res = await call(acme, 'delete', T, `${V1}/devices/${id}?positions=remove`, 200);
    expect(res.body).toEqual({ id, removed: true, positions: 'removed', positionsRemoved: 5 });
    expect(await count('positions WHERE device_id = $1', [id])).toBe(0);
  });

  test('an unknown positions value is a 400 and removes nothing', async () => {
    const id = await f.device(acme, '359633100760003', 'Stays');
    const res = await call(acme, 'delete', T, `${V1}/devices/${id}?positions=all`, 400);
    expect(res.body.error).toMatch(/"positions": must be one of keep, remove/);
    await call(acme, 'get', T, `${V1}/devices/${id}`, 200);
  });
});

describe('paging the devices list', () => {
  let account: string;
  const list = (q = '') => call(account, 'get', `${V1}/devices`, `${V1}/devices${q}`, 200);

  beforeAll(async () => {
    account = await f.account('Pager');
    for (let i = 0; i < 23; i++) await f.device(account, String(359633100770000 + i), `Unit ${i}`);
  });

  test('without limit the answer is every unit and nothing else, as before paging', async () => {
    const res = await list();
    expect(Object.keys(res.body)).toEqual(['data']);
    expect(res.body.data).toHaveLength(23);
  });

  test('a walk with limit sees every unit once, in the unpaged order, while units are added', async () => {
    const before = (await list()).body.data.map((d: { id: string }) => d.id) as string[];
    const seen: string[] = [];
    let cursor: string | null = null;
    let added = 0;
    for (let pages = 0; pages < 20; pages++) {
      const res = await list(`?limit=5${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.body.data.length).toBeLessThanOrEqual(5);
      seen.push(...res.body.data.map((d: { id: string }) => d.id));
      cursor = res.body.nextCursor;
      if (cursor === null) break;
      if (added < 4) await f.device(account, String(359633100779000 + added++), `Added ${added}`);
    }
    expect(cursor).toBeNull();
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of before) expect(seen).toContain(id);
    expect(seen).toEqual([...seen].sort());
    const all = (await list()).body.data.map((d: { id: string }) => d.id) as string[];
    expect(all).toHaveLength(27);
    expect(all.filter((id) => seen.includes(id))).toEqual(seen);
  });

  test('the last page says so; bad paging is a 400', async () => {
    const res = await list('?limit=100');
    expect(res.body.data).toHaveLength(27);
    expect(res.body.nextCursor).toBeNull();
    const first = await list('?limit=1');
    for (const q of ['?limit=0', '?limit=10001', '?limit=x', '?limit=5&cursor=garbage', `?cursor=${first.body.nextCursor as string}`]) {
      const bad = await call(account, 'get', `${V1}/devices`, `${V1}/devices${q}`, 400);
      expect(bad.body.error).toMatch(/"limit"|"cursor"/);
    }
  });

  test('pages never include another account’s units', async () => {
    const mine = (await call(acme, 'get', `${V1}/devices`, `${V1}/devices?limit=10000`, 200)).body.data.map((d: { imei: string }) => d.imei) as string[];
    expect(mine.some((imei) => imei.startsWith('35963310077'))).toBe(false);
  });
});
