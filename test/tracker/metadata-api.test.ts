// Geofences, drivers, custom rules and settings through the tracker's API on PostgreSQL: the happy
// paths, every kind of 400, 404 for another account's records, 409s, and every response checked
// against the OpenAPI document.
import { describe, expect, test, beforeAll, afterAll } from '@jest/globals';
import { assertMatchesDocument } from '../helpers/openapi.js';
import { startTrackerFixture, type TrackerFixture } from '../helpers/tracker-app.js';

let f: TrackerFixture;
let acme: string;
let other: string;
let van: string;
let truck: string;
let foreignDevice: string;
const V1 = '/api/public/v1';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
async function call(method: Method, template: string, path: string, body?: unknown, expected = 200, account = acme) {
  const req = f.as(account)[method](path);
  const res = body === undefined ? await req : await req.send(body as object);
  expect({ status: res.status, body: res.body }).toMatchObject({ status: expected });
  if (expected !== 204) assertMatchesDocument(method, template, expected, res.body);
  return res;
}

const circle = { name: 'Depot', shape: { type: 'circle', center: { lat: 52.52, lng: 13.405 }, radius: 150 } };
const square = { name: 'Yard', description: 'North yard', shape: { type: 'polygon', points: [{ lat: 52.53, lng: 13.4 }, { lat: 52.53, lng: 13.42 }, { lat: 52.54, lng: 13.42 }, { lat: 52.54, lng: 13.4 }, { lat: 52.53, lng: 13.4 }] } };

beforeAll(async () => {
  f = await startTrackerFixture('postgres');
  acme = await f.account('Acme');
  other = await f.account('Other');
  van = await f.device(acme, '359633100000601', 'Van');
  truck = await f.device(acme, '359633100000602', 'Truck');
  foreignDevice = await f.device(other, '359633100000603', 'Foreign');
});
afterAll(() => f.close());

describe('geofences', () => {
  const T = `${V1}/geofences`;
  const ONE = `${V1}/geofences/{id}`;

  test('create, read, list, replace and delete', async () => {
    const created = await call('post', T, T, circle, 201);
    expect(created.body).toMatchObject({ id: expect.stringMatching(/^gfn_/), name: 'Depot', description: '', shape: circle.shape });
    const id = created.body.id as string;
    const polygon = await call('post', T, T, square, 201);
    expect((await call('get', ONE, `${T}/${id}`)).body).toEqual(created.body);
    const list = await call('get', T, T);
    expect(list.body.data.map((g: { id: string }) => g.id)).toEqual([id, polygon.body.id]);
    const replaced = await call('put', ONE, `${T}/${id}`, { ...circle, name: 'Main depot', shape: { ...circle.shape, radius: 300 } });
    expect(replaced.body).toMatchObject({ id, name: 'Main depot', shape: { radius: 300 }, createdAt: created.body.createdAt });
    await call('delete', ONE, `${T}/${id}`, undefined, 204);
    await call('get', ONE, `${T}/${id}`, undefined, 404);
    await call('delete', ONE, `${T}/${id}`, undefined, 404);
  });

  test('pages with a cursor', async () => {
    for (let i = 0; i < 3; i++) await call('post', T, T, { ...circle, name: `Page ${i}` }, 201, other);
    const first = await call('get', T, `${T}?limit=2`, undefined, 200, other);
    const second = await call('get', T, `${T}?limit=2&cursor=${first.body.nextCursor}`, undefined, 200, other);
    expect([...first.body.data, ...second.body.data].map((g: { name: string }) => g.name)).toEqual(['Page 0', 'Page 1', 'Page 2']);
    expect(second.body.nextCursor).toBeNull();
  });

  test.each<[string, unknown, RegExp]>([
    ['a polygon that does not close', { ...square, shape: { type: 'polygon', points: square.shape.points.slice(0, 4) } }, /"shape\.points": the polygon is not closed/],
    ['a polygon that crosses itself', { ...square, shape: { type: 'polygon', points: [{ lat: 0, lng: 0 }, { lat: 1, lng: 1 }, { lat: 1, lng: 0 }, { lat: 0, lng: 1 }, { lat: 0, lng: 0 }] } }, /"shape\.points": the polygon crosses itself/],
    ['radius 0', { ...circle, shape: { ...circle.shape, radius: 0 } }, /"shape\.radius": must be greater than 0/],
    ['a negative radius', { ...circle, shape: { ...circle.shape, radius: -1 } }, /"shape\.radius": must be greater than 0/],
    ['latitude out of range', { ...circle, shape: { ...circle.shape, center: { lat: 95, lng: 0 } } }, /"shape\.center\.lat"/],
    ['longitude out of range', { ...circle, shape: { ...circle.shape, center: { lat: 0, lng: -181 } } }, /"shape\.center\.lng"/],
    ['too many vertices', { ...square, shape: { type: 'polygon', points: Array.from({ length: 1001 }, (_, i) => ({ lat: i / 1000, lng: 0 })) } }, /"shape\.points": at most 1000 points/],
    ['a name too long', { ...circle, name: 'x'.repeat(101) }, /"name": must be at most 100 characters/],
    ['no name', { shape: circle.shape }, /"name": is required/],
    ['an unknown shape', { ...circle, shape: { type: 'hexagon' } }, /"shape\.type"/],
    ['an unknown field', { ...circle, colour: 'red' }, /unknown field "colour"/],
    ['not an object', [circle], /the body must be a JSON object/],
  ])('400 for %s, and nothing is written', async (_name, body, message) => {
    const before = (await call('get', T, T)).body.data.length;
    const res = await call('post', T, T, body, 400);
    expect(res.body.error).toMatch(message);
    expect((await call('get', T, T)).body.data.length).toBe(before);
  });

  test('415 without a JSON content type; 400 for malformed JSON', async () => {
    const text = await f.as(acme).post(`${V1}/geofences`).set('content-type', 'text/plain').send('name=Depot');
    expect(text.status).toBe(415);
    const broken = await f.as(acme).post(`${V1}/geofences`).set('content-type', 'application/json').send('{"name":');
    expect(broken.status).toBe(400);
    expect(broken.body.error).toMatch(/not valid JSON/);
  });

  test("another account's geofence is a 404 everywhere", async () => {
    const theirs = (await call('post', T, T, circle, 201, other)).body.id as string;
    await call('get', ONE, `${T}/${theirs}`, undefined, 404);
    await call('put', ONE, `${T}/${theirs}`, circle, 404);
    await call('delete', ONE, `${T}/${theirs}`, undefined, 404);
    expect((await call('get', T, T)).body.data.map((g: { id: string }) => g.id)).not.toContain(theirs);
    await call('get', ONE, `${T}/${theirs}`, undefined, 200, other);
  });

  test('the write scope is needed to change, read to list', async () => {
    const readOnly = f.as(acme, 'read');
    expect((await readOnly.post(T).send(circle)).status).toBe(403);
    expect((await readOnly.get(T)).status).toBe(200);
    expect((await f.as(acme, 'write').get(T)).status).toBe(403);
  });
});

describe('drivers and assignment', () => {
  const T = `${V1}/drivers`;
  const ONE = `${V1}/drivers/{id}`;
  const ASSIGN = `${V1}/devices/{id}/driver`;

  test('create, read, replace, assign, move and delete', async () => {
    const ann = await call('post', T, T, { name: 'Ann', phone: '+49 30 1234', uniqueId: '01A2B3C4' }, 201);
    expect(ann.body).toMatchObject({ name: 'Ann', phone: '+49 30 1234', licenseNumber: '', uniqueId: '01A2B3C4', deviceId: null });
    const id = ann.body.id as string;
    await call('put', ASSIGN, `${V1}/devices/${van}/driver`, { driverId: id });
    expect((await call('get', ASSIGN, `${V1}/devices/${van}/driver`)).body).toEqual({ deviceId: van, driverId: id });
    expect((await call('get', ONE, `${T}/${id}`)).body.deviceId).toBe(van);
    // A driver drives one unit: assigning them to the truck takes them off the van.
    await call('put', ASSIGN, `${V1}/devices/${truck}/driver`, { driverId: id });
    expect((await call('get', ASSIGN, `${V1}/devices/${van}/driver`)).body.driverId).toBeNull();
    expect((await call('get', ONE, `${T}/${id}`)).body.deviceId).toBe(truck);
    const renamed = await call('put', ONE, `${T}/${id}`, { name: 'Ann B.', licenseNumber: 'B-123' });
    expect(renamed.body).toMatchObject({ name: 'Ann B.', licenseNumber: 'B-123', uniqueId: null, deviceId: truck });
    await call('delete', ONE, `${T}/${id}`, undefined, 204);
    expect((await call('get', ASSIGN, `${V1}/devices/${truck}/driver`)).body.driverId).toBeNull();
  });

  test('uniqueId is unique within the account only', async () => {
    await call('post', T, T, { name: 'Bo', uniqueId: 'KEY-1' }, 201);
    expect((await call('post', T, T, { name: 'Cy', uniqueId: 'KEY-1' }, 409)).body.error).toMatch(/uniqueId KEY-1/);
    await call('post', T, T, { name: 'Cy', uniqueId: 'KEY-1' }, 201, other);
  });

  test("another account's driver or unit: 400 naming the field, or 404", async () => {
    const theirs = (await call('post', T, T, { name: 'Theirs' }, 201, other)).body.id as string;
    expect((await call('put', ASSIGN, `${V1}/devices/${van}/driver`, { driverId: theirs }, 400)).body.error).toMatch(/"driverId": no driver/);
    await call('put', ASSIGN, `${V1}/devices/${foreignDevice}/driver`, { driverId: null }, 404);
    await call('get', ONE, `${T}/${theirs}`, undefined, 404);
    expect((await call('post', T, T, { name: '' }, 400)).body.error).toMatch(/"name": must not be empty/);
    expect((await call('put', ASSIGN, `${V1}/devices/${van}/driver`, {}, 400)).body.error).toMatch(/"driverId": is required/);
  });
});

describe('rules', () => {
  const T = `${V1}/rules`;
  const ONE = `${V1}/rules/{id}`;
  const rule = { name: 'Fast with engine on', severity: 'warning', condition: { and: [{ '>': [{ var: 'speed' }, 50] }, { '==': [{ var: 'attributes.ignition' }, true] }] } };

  test('create with defaults, with a geofence, window and devices; replace; delete', async () => {
    const created = await call('post', T, T, rule, 201);
    expect(created.body).toMatchObject({ ...rule, enabled: true, geofenceId: null, timeWindow: null, deviceIds: null });
    const zone = (await call('post', `${V1}/geofences`, `${V1}/geofences`, circle, 201)).body.id as string;
    const full = { ...rule, enabled: false, geofenceId: zone, timeWindow: { days: ['mon', 'fri'], from: '22:00', to: '06:00', timeZone: 'Europe/Berlin' }, deviceIds: [van] };
    const replaced = await call('put', ONE, `${T}/${created.body.id}`, full);
    expect(replaced.body).toMatchObject(full);
    // The geofence is in use: it cannot be deleted until the rule lets go of it.
    expect((await call('delete', `${V1}/geofences/{id}`, `${V1}/geofences/${zone}`, undefined, 409)).body.error).toMatch(/used by rule/);
    await call('delete', ONE, `${T}/${created.body.id}`, undefined, 204);
    await call('delete', `${V1}/geofences/{id}`, `${V1}/geofences/${zone}`, undefined, 204);
  });

  test.each<[string, object, RegExp]>([
    ['an operator that is not allowed', { condition: { log: ['x'] } }, /"condition": unknown or unsupported operator "log"/],
    ['a path into a prototype', { condition: { '==': [{ var: '__proto__.x' }, 1] } }, /"condition": variable "__proto__\.x" is not allowed/],
    ['a variable name made by an operation', { condition: { '==': [{ var: { cat: ['constructor.na', 'me'] } }, 'Object'] } }, /"condition": variable names must be literal strings/],
    ['a condition that is not an object', { condition: 'speed > 50' }, /"condition"/],
    ['an unknown severity', { severity: 'urgent' }, /"severity": must be one of critical, warning, info/],
    ['a bad time window', { timeWindow: { from: '25:00', to: '06:00' } }, /"timeWindow\.from": must be a time HH:MM/],
    ['an unknown time zone', { timeWindow: { from: '08:00', to: '09:00', timeZone: 'Nowhere/City' } }, /"timeWindow\.timeZone": must be an IANA time zone/],
    ['a geofence of another account', { geofenceId: 'gfn_other' }, /"geofenceId": no geofence gfn_other/],
  ])('400 for %s', async (_name, change, message) => {
    expect((await call('post', T, T, { ...rule, ...change }, 400)).body.error).toMatch(message);
  });

  test("a device of another account is refused; another account's rule is a 404", async () => {
    expect((await call('post', T, T, { ...rule, deviceIds: [van, foreignDevice] }, 400)).body.error).toMatch(new RegExp(`"deviceIds": no device ${foreignDevice}`));
    const theirs = (await call('post', T, T, rule, 201, other)).body.id as string;
    await call('get', ONE, `${T}/${theirs}`, undefined, 404);
    await call('put', ONE, `${T}/${theirs}`, rule, 404);
  });
});

describe('settings', () => {
  const DEVICE = `${V1}/devices/{id}/settings`;
  const ACCOUNT = `${V1}/settings`;

  test('a unit starts with none; PATCH changes only what it names; null clears', async () => {
    expect((await call('get', DEVICE, `${V1}/devices/${truck}/settings`)).body).toEqual({
      speedLimitKmh: null, fuelTankLitres: null, fuelLowLitres: null, fuelLowPercent: null, maintenance: { odometer: null, engineHours: null },
      trips: { minTripDistanceM: null, minTripDurationS: null, minStopDurationS: null, maxGapS: null },
    });
    await call('patch', DEVICE, `${V1}/devices/${truck}/settings`, { speedLimitKmh: 80, fuelTankLitres: 120, maintenance: { odometer: { everyKm: 15000 } } });
    const after = await call('patch', DEVICE, `${V1}/devices/${truck}/settings`, { fuelLowPercent: 10, maintenance: { engineHours: { start: 100, every: 250 } } });
    expect(after.body).toEqual({
      speedLimitKmh: 80, fuelTankLitres: 120, fuelLowLitres: null, fuelLowPercent: 10,
      maintenance: { odometer: { startKm: 0, everyKm: 15000 }, engineHours: { start: 100, every: 250 } },
      trips: { minTripDistanceM: null, minTripDurationS: null, minStopDurationS: null, maxGapS: null },
    });
    const cleared = await call('patch', DEVICE, `${V1}/devices/${truck}/settings`, { speedLimitKmh: null, maintenance: { odometer: null } });
    expect(cleared.body).toMatchObject({ speedLimitKmh: null, fuelTankLitres: 120, maintenance: { odometer: null, engineHours: { start: 100, every: 250 } } });
    expect((await call('get', DEVICE, `${V1}/devices/${truck}/settings`)).body).toEqual(cleared.body);
  });

  test.each<[object, RegExp]>([
    [{ speedLimitKmh: 0 }, /"speedLimitKmh": must be greater than 0/],
    [{ speedLimitKmh: 'fast' }, /"speedLimitKmh"/],
    [{ fuelLowPercent: 101 }, /"fuelLowPercent": must be at most 100/],
    [{ fuelTankLitres: -5 }, /"fuelTankLitres": must be greater than 0/],
    [{ maintenance: { odometer: { startKm: 0 } } }, /"maintenance\.odometer\.everyKm": is required/],
    [{ maintenance: { odometer: { everyKm: 0 } } }, /"maintenance\.odometer\.everyKm": must be greater than 0/],
    [{ colour: 'red' }, /unknown field "colour"/],
  ])('400 for %j, and nothing changes', async (body, message) => {
    const before = (await call('get', DEVICE, `${V1}/devices/${van}/settings`)).body;
    expect((await call('patch', DEVICE, `${V1}/devices/${van}/settings`, body, 400)).body.error).toMatch(message);
    expect((await call('get', DEVICE, `${V1}/devices/${van}/settings`)).body).toEqual(before);
  });

  test("another account's unit is a 404; the account default is its own", async () => {
    await call('get', DEVICE, `${V1}/devices/${foreignDevice}/settings`, undefined, 404);
    await call('patch', DEVICE, `${V1}/devices/${foreignDevice}/settings`, { speedLimitKmh: 50 }, 404);
    const trips = { minTripDistanceM: null, minTripDurationS: null, minStopDurationS: null, maxGapS: null };
    expect((await call('get', ACCOUNT, ACCOUNT)).body).toEqual({ speedLimitKmh: null, trips });
    expect((await call('patch', ACCOUNT, ACCOUNT, { speedLimitKmh: 110 })).body).toEqual({ speedLimitKmh: 110, trips });
    expect((await call('get', ACCOUNT, ACCOUNT, undefined, 200, other)).body).toEqual({ speedLimitKmh: null, trips });
    expect((await call('patch', ACCOUNT, ACCOUNT, { speedLimitKmh: 500 }, 400)).body.error).toMatch(/"speedLimitKmh": must be at most 400/);
  });
});
