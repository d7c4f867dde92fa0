// Dashboard pages for what the event rules use, through the gateway and the real tracker: a
// device's speed limit, fuel thresholds, maintenance schedule and driver; acknowledging alerts;
// geofences and drivers. Bad input names the field and changes nothing, every form needs the
// session's CSRF token, and another account's records are 404 by URL.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { runVerb } from '../../tracker/admin/verbs.js';
import { insertAlert, listAlerts } from '../../tracker/alerts/repository.js';
import { createRule, deleteRule } from '../../tracker/custom-rules/repository.js';
import { findDevice } from '../../tracker/devices/repository.js';
import { deviceSettings } from '../../tracker/devices/settings.js';
import { createDriver, deviceDriver, findDriver, listDrivers } from '../../tracker/drivers/repository.js';
import { createGeofence, findGeofence, listGeofences } from '../../tracker/geofences/repository.js';
import { account, createOwner, signIn, startDashboardStack, type DashboardStack, type FormClient } from '../helpers/dashboard.js';

let stack: DashboardStack;
let mine: string;
let theirs: string;
let me: FormClient;
let myDevice: string;
const their = { device: '', geofence: '', driver: '', alert: 0 };
const PASSWORD = 'correct horse battery staple';
const db = () => stack.tracker.ctx.db;
const run = (name: Parameters<typeof runVerb>[1], args: Record<string, unknown>) => runVerb(stack.tracker.ctx, name, args) as Promise<Record<string, string>>;
const CIRCLE = { type: 'circle' as const, center: { lat: 52.5, lng: 13.4 }, radius: 300 };
const idFrom = (location: string | null) => /\/(gfn_[A-Za-z0-9]+)/.exec(location ?? '')?.[1];

beforeAll(async () => {
  stack = await startDashboardStack();
  mine = await account(stack, 'Mine');
  theirs = await account(stack, 'Theirs');
  await createOwner(stack, mine, 'me@mine.test', PASSWORD);
  myDevice = (await run('devices add', { account: mine, imei: '359633100008001', name: 'Van 1' })).id!;
  their.device = (await run('devices add', { account: theirs, imei: '359633100008002', name: 'Their van' })).id!;
  their.geofence = (await createGeofence(db(), theirs, { name: 'Their depot', description: '', shape: CIRCLE })).id;
  their.driver = (await createDriver(db(), theirs, { name: 'Their driver', phone: '', licenseNumber: '', uniqueId: null })).id;
  await run('devices add', { account: theirs, imei: '359633100008003', name: 'Their other van' });
  their.alert = (await insertAlert(db(), { accountId: theirs, deviceId: their.device, type: 'speeding', severity: 'warning', message: 'Their speeding' })).id;
  me = await signIn(stack, 'me@mine.test', PASSWORD);
}, 60_000);
afterAll(() => stack.close());

test('empty lists say what they are for and never show another account’s records', async () => {
  const geofences = (await me.get('/dashboard/geofences')).text;
  expect(geofences).toContain('No geofences yet.');
  expect(geofences).not.toContain('Their depot');
  const drivers = (await me.get('/dashboard/drivers')).text;
  expect(drivers).toContain('No drivers yet.');
  expect(drivers).not.toContain('Their driver');
});

describe('device settings the rules use', () => {
  const blank = { name: 'Van 1', plate: '', speedLimitKmh: '', fuelTankLitres: '', fuelLowLitres: '', fuelLowPercent: '', odometerStartKm: '', odometerEveryKm: '', engineHoursStart: '', engineHoursEvery: '', driverId: '' };

  test('bad values are named next to their fields and nothing is saved', async () => {
    const form = await me.get(`/dashboard/devices/${myDevice}`);
    for (const name of ['speedLimitKmh', 'fuelTankLitres', 'fuelLowLitres', 'fuelLowPercent', 'odometerStartKm', 'odometerEveryKm', 'engineHoursStart', 'engineHoursEvery']) expect(form.text).toContain(`name="${name}"`);
    expect(form.text).toMatch(/<select id="field-driverId" name="driverId"[^>]*><option value="" selected>No driver<\/option><\/select>/);
    const bad = await me.post(`/dashboard/devices/${myDevice}`, { ...blank, name: 'Renamed', speedLimitKmh: '0', fuelTankLitres: '12,5', fuelLowPercent: '150', odometerStartKm: '1000', engineHoursEvery: '-1' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('speed limit must be greater than 0');
    expect(bad.text).toContain('tank capacity must be a number, such as 12.5');
    expect(bad.text).toContain('low fuel in percent must be at most 100');
    expect(bad.text).toContain('a distance interval is needed for a schedule');
    expect(bad.text).toContain('engine hours service interval must be greater than 0');
    expect(bad.text).toMatch(/id="field-speedLimitKmh"[^>]*aria-invalid="true"/);
    expect(bad.text).toContain('value="12,5"');
    expect(await deviceSettings(db(), myDevice)).toEqual({
      speedLimitKmh: null, fuelTankLitres: null, fuelLowLitres: null, fuelLowPercent: null, maintenance: { odometer: null, engineHours: null },
      trips: { minTripDistanceM: null, minTripDurationS: null, minStopDurationS: null, maxGapS: null },
    });
    expect((await findDevice(db(), mine, myDevice))!.name).toBe('Van 1');
  });

  test('speed limit, fuel and maintenance are saved together and shown again; blank clears a setting', async () => {
    await me.get(`/dashboard/devices/${myDevice}`);
    const ok = await me.post(`/dashboard/devices/${myDevice}`, { ...blank, speedLimitKmh: '80', fuelTankLitres: '60', fuelLowLitres: '10', odometerStartKm: '', odometerEveryKm: '15000', engineHoursStart: '120.5', engineHoursEvery: '250' });
    expect(ok.status).toBe(303);
    expect(await deviceSettings(db(), myDevice)).toEqual({
      speedLimitKmh: 80,
      fuelTankLitres: 60,
      fuelLowLitres: 10,
      fuelLowPercent: null,
      maintenance: { odometer: { startKm: 0, everyKm: 15000 }, engineHours: { start: 120.5, every: 250 } },
      trips: { minTripDistanceM: null, minTripDurationS: null, minStopDurationS: null, maxGapS: null },
    });
    const shown = (await me.get(ok.location!)).text;
    expect(shown).toContain('Changes saved.');
    expect(shown).toMatch(/id="field-speedLimitKmh" name="speedLimitKmh"[^>]*value="80"/);
    expect(shown).toMatch(/id="field-engineHoursStart" name="engineHoursStart"[^>]*value="120.5"/);

    const cleared = await me.post(`/dashboard/devices/${myDevice}`, { ...blank, fuelTankLitres: '60', fuelLowLitres: '10', odometerEveryKm: '15000', engineHoursStart: '', engineHoursEvery: '' });
    expect(cleared.status).toBe(303);
    expect(await deviceSettings(db(), myDevice)).toMatchObject({ speedLimitKmh: null, fuelTankLitres: 60, maintenance: { odometer: { startKm: 0, everyKm: 15000 }, engineHours: null } });
  });

  test('the driver is chosen from the account’s drivers; another account’s driver cannot be put on the unit', async () => {
    const driver = await createDriver(db(), mine, { name: 'Ana Silva', phone: '', licenseNumber: '', uniqueId: 'IB-7' });
    const form = await me.get(`/dashboard/devices/${myDevice}`);
    expect(form.text).toContain(`<option value="${driver.id}">Ana Silva (IB-7)</option>`);
    expect(form.text).not.toContain('Their driver');
    const ok = await me.post(`/dashboard/devices/${myDevice}`, { ...blank, driverId: driver.id });
    expect(ok.status).toBe(303);
    expect(await deviceDriver(db(), myDevice)).toBe(driver.id);
    expect((await me.get(ok.location!)).text).toContain(`<option value="${driver.id}" selected>`);

    const foreign = await me.post(`/dashboard/devices/${myDevice}`, { ...blank, driverId: their.driver });
    expect(foreign.status).toBe(400);
    expect(foreign.text).toContain('The chosen driver no longer exists');
    expect(await deviceDriver(db(), myDevice)).toBe(driver.id);
    expect((await findDriver(db(), theirs, their.driver))!.deviceId).toBeNull();

    const off = await me.post(`/dashboard/devices/${myDevice}`, { ...blank, driverId: '' });
    expect(off.status).toBe(303);
    expect(await deviceDriver(db(), myDevice)).toBeNull();
  });

  test('another account’s device settings cannot be changed by URL', async () => {
    await me.get(`/dashboard/devices/${myDevice}`);
    const res = await me.post(`/dashboard/devices/${their.device}`, { ...blank, name: 'Hijacked', speedLimitKmh: '5' });
    expect(res.status).toBe(404);
    expect((await deviceSettings(db(), their.device)).speedLimitKmh).toBeNull();
  });
});

describe('acknowledging alerts', () => {
  test('an open alert is acknowledged with its button and moves to the acknowledged list', async () => {
    const alert = await insertAlert(db(), { accountId: mine, deviceId: myDevice, type: 'sos', severity: 'critical', message: 'SOS pressed' });
    const open = await me.get('/dashboard/alerts');
    expect(open.text).toContain(`action="/dashboard/alerts/${alert.id}/acknowledge"`);
    expect(open.text).toContain('Acknowledge<span class="visually-hidden"> sos alert of Van 1</span>');
    const res = await me.post(`/dashboard/alerts/${alert.id}/acknowledge`, {});
    expect(res.status).toBe(303);
    expect((await me.get(res.location!)).text).toContain('Alert acknowledged.');
    const acknowledged = await listAlerts(db(), { accountId: mine, status: 'acknowledged', since: null, before: null, limit: 10 });
    expect(acknowledged.map((a) => a.id)).toContain(alert.id);
    const page = (await me.get('/dashboard/alerts?status=acknowledged')).text;
    expect(page).toContain('SOS pressed');
    expect(page).not.toContain('/acknowledge"');
    expect(page).toMatch(/<td data-label="Acknowledged"><time datetime=/);
  });

  test('without the CSRF token nothing is acknowledged; another account’s or a made-up alert is a 404', async () => {
    const alert = await insertAlert(db(), { accountId: mine, deviceId: myDevice, type: 'sos', severity: 'critical', message: 'Second SOS' });
    await me.get('/dashboard/alerts');
    expect((await me.post(`/dashboard/alerts/${alert.id}/acknowledge`, { _csrf: null })).status).toBe(403);
    for (const id of [String(their.alert), 'abc', '0', '99999999']) expect((await me.post(`/dashboard/alerts/${id}/acknowledge`, {})).status).toBe(404);
    const open = await listAlerts(db(), { accountId: mine, status: 'open', since: null, before: null, limit: 10 });
    expect(open.map((a) => a.id)).toContain(alert.id);
    const theirsOpen = await listAlerts(db(), { accountId: theirs, status: 'open', since: null, before: null, limit: 10 });
    expect(theirsOpen.map((a) => a.id)).toContain(their.alert);
  });
});

describe('geofences', () => {
  const circle = { name: 'Depot', description: '', type: 'circle', lat: '52.52', lng: '13.405', radius: '250', points: '' };

  test('bad input names each field and adds nothing', async () => {
    await me.get('/dashboard/geofences');
    const bad = await me.post('/dashboard/geofences', { ...circle, name: ' ', lat: '', lng: '200', radius: '-5' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('name must not be empty');
    expect(bad.text).toContain('latitude of the centre is required');
    expect(bad.text).toContain('radius must be greater than 0');
    const badLng = await me.post('/dashboard/geofences', { ...circle, lng: '200' });
    expect(badLng.text).toContain('longitude of the centre must be at most 180');
    const noType = await me.post('/dashboard/geofences', { ...circle, type: null });
    expect(noType.text).toContain('choose a circle or a polygon');
    const garbage = await me.post('/dashboard/geofences', { ...circle, type: 'polygon', points: '52.5,13.4\nnorth of the depot\n52.6,13.5' });
    expect(garbage.status).toBe(400);
    expect(garbage.text).toContain('line 2 (“north of the depot”) is not “latitude,longitude”');
    const crossing = await me.post('/dashboard/geofences', { ...circle, type: 'polygon', points: '0,0\n1,1\n0,1\n1,0' });
    expect(crossing.text).toContain('the polygon crosses itself');
    const hole = { type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 0]], [[0.1, 0.1], [0.2, 0.1], [0.2, 0.2], [0.1, 0.1]]] };
    const holed = await me.post('/dashboard/geofences', { ...circle, type: 'polygon', points: JSON.stringify(hole) });
    expect(holed.text).toContain('polygons with holes are not supported');
    expect(await listGeofences(db(), mine, null, 10)).toEqual([]);
  });

  test('a circle is added and drawn; a polygon of lines is closed; GeoJSON is accepted', async () => {
    await me.get('/dashboard/geofences');
    const added = await me.post('/dashboard/geofences', circle);
    expect(added.status).toBe(303);
    const id = idFrom(added.location)!;
    expect(await findGeofence(db(), mine, id)).toMatchObject({ name: 'Depot', shape: { type: 'circle', center: { lat: 52.52, lng: 13.405 }, radius: 250 } });
    const page = await me.get(added.location!);
    expect(page.text).toContain('Geofence added.');
    expect(page.text).toMatch(/<svg class="track"[^>]*role="img"/);
    expect(page.text).toMatch(/<circle class="shape-area" cx="400.0" cy="250.0" r="[\d.]+"\/>/);
    expect(page.text).toMatch(/<text [^>]*>\d+ (m|km)<\/text>/);

    const lines = await me.post('/dashboard/geofences', { ...circle, name: 'Yard', type: 'polygon', points: '52.50,13.40\n52.50, 13.41\n\n52.51 13.41\n' });
    expect(lines.status).toBe(303);
    const yard = (await findGeofence(db(), mine, idFrom(lines.location)!))!;
    expect(yard.shape).toEqual({ type: 'polygon', points: [{ lat: 52.5, lng: 13.4 }, { lat: 52.5, lng: 13.41 }, { lat: 52.51, lng: 13.41 }, { lat: 52.5, lng: 13.4 }] });
    expect((await me.get(lines.location!)).text).toMatch(/<polygon class="shape-area" points="([\d.]+,[\d.]+ ){3}[\d.]+,[\d.]+"\/>/);

    const feature = { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [[[13.4, 52.5], [13.42, 52.5], [13.42, 52.52], [13.4, 52.5]]] } };
    const geojson = await me.post('/dashboard/geofences', { ...circle, name: 'Site', type: 'polygon', points: JSON.stringify(feature) });
    expect(geojson.status).toBe(303);
    expect((await findGeofence(db(), mine, idFrom(geojson.location)!))!.shape).toMatchObject({ type: 'polygon', points: [{ lat: 52.5, lng: 13.4 }, { lat: 52.5, lng: 13.42 }, { lat: 52.52, lng: 13.42 }, { lat: 52.5, lng: 13.4 }] });

    const list = (await me.get('/dashboard/geofences')).text;
    expect(list).toContain('Circle of 250 m around 52.52, 13.405');
    expect(list).toContain('Polygon of 3 corners');
  });

  test('editing shows the current shape in the form, refuses bad input and saves a new shape', async () => {
    const g = await createGeofence(db(), mine, { name: 'Editable', description: 'old', shape: CIRCLE });
    const form = await me.get(`/dashboard/geofences/${g.id}`);
    expect(form.text).toMatch(/id="shape-circle" name="type" value="circle" checked/);
    expect(form.text).toMatch(/name="radius"[^>]*value="300"/);
    const bad = await me.post(`/dashboard/geofences/${g.id}`, { ...circle, name: 'x'.repeat(101) });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('name must be at most 100 characters');
    expect((await findGeofence(db(), mine, g.id))!.name).toBe('Editable');
    const ok = await me.post(`/dashboard/geofences/${g.id}`, { ...circle, name: 'Edited', description: 'new', type: 'polygon', points: '1,1\n1,2\n2,2' });
    expect(ok.status).toBe(303);
    expect(await findGeofence(db(), mine, g.id)).toMatchObject({ name: 'Edited', description: 'new', shape: { type: 'polygon' } });
    const shown = (await me.get(ok.location!)).text;
    expect(shown).toContain('Changes saved.');
    expect(shown).toContain('1,1\n1,2\n2,2</textarea>');
  });

  test('a geofence a rule uses is not deleted, and the page names the rule; once the rule is gone it is', async () => {
    const g = await createGeofence(db(), mine, { name: 'Ruled', description: '', shape: CIRCLE });
    const rule = await createRule(db(), mine, { name: 'Fast <in> depot', enabled: true, severity: 'warning', condition: { '>': [{ var: 'speed' }, 20] }, geofenceId: g.id, timeWindow: null, deviceIds: null });
    await me.get(`/dashboard/geofences/${g.id}`);
    const refused = await me.post(`/dashboard/geofences/${g.id}/delete`, {});
    expect(refused.status).toBe(409);
    expect(refused.text).toContain('The geofence was not deleted');
    expect(refused.text).toContain(`A rule uses it: <strong>Fast &lt;in&gt; depot</strong> <span class="mono">(${rule.id})</span>`);
    expect(await findGeofence(db(), mine, g.id)).not.toBeNull();
    await deleteRule(db(), mine, rule.id);
    const deleted = await me.post(`/dashboard/geofences/${g.id}/delete`, {});
    expect(deleted.status).toBe(303);
    expect((await me.get(deleted.location!)).text).toContain('Geofence deleted.');
    expect(await findGeofence(db(), mine, g.id)).toBeNull();
  });

  test('another account’s geofence is a 404 to read, edit and delete; forms need the CSRF token', async () => {
    expect((await me.get('/dashboard/geofences')).text).not.toContain('Their depot');
    const page = await me.get(`/dashboard/geofences/${their.geofence}`);
    expect(page.status).toBe(404);
    expect(page.text).not.toContain('Their depot');
    await me.get('/dashboard/geofences');
    expect((await me.post(`/dashboard/geofences/${their.geofence}`, { ...circle, name: 'Hijacked' })).status).toBe(404);
    expect((await me.post(`/dashboard/geofences/${their.geofence}/delete`, {})).status).toBe(404);
    expect(await findGeofence(db(), theirs, their.geofence)).toMatchObject({ name: 'Their depot' });
    const before = (await listGeofences(db(), mine, null, 100)).length;
    expect((await me.post('/dashboard/geofences', { ...circle, name: 'Forged', _csrf: null })).status).toBe(403);
    expect((await me.post('/dashboard/geofences', { ...circle, name: 'Forged' }, { origin: 'https://evil.example' })).status).toBe(403);
    expect(await listGeofences(db(), mine, null, 100)).toHaveLength(before);
  });

  test('a polygon of 1000 corners fits in the form', async () => {
    await me.get('/dashboard/geofences');
    const corners = Array.from({ length: 999 }, (_, i) => {
      const a = (2 * Math.PI * i) / 999;
      return `${(48.8566 + 0.05 * Math.sin(a)).toFixed(6)},${(2.3522 + 0.05 * Math.cos(a)).toFixed(6)}`;
    });
    const res = await me.post('/dashboard/geofences', { ...circle, name: 'Ring road', type: 'polygon', points: corners.join('\r\n') });
    expect(res.status).toBe(303);
    const g = (await findGeofence(db(), mine, idFrom(res.location)!))!;
    expect(g.shape.type === 'polygon' && g.shape.points.length).toBe(1000);
  });
});

describe('drivers', () => {
  test('a bad driver is refused with the field named', async () => {
    await me.get('/dashboard/drivers');
    const bad = await me.post('/dashboard/drivers', { name: '', phone: '1'.repeat(33), licenseNumber: '', uniqueId: '' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('name must not be empty');
    expect(bad.text).toContain('phone must be at most 32 characters');
  });

  test('a driver is added, shown with their unit, edited, and a key another driver has is refused', async () => {
    await me.get('/dashboard/drivers');
    const added = await me.post('/dashboard/drivers', { name: 'Bo Lindqvist', phone: '+46 70 123 45 67', licenseNumber: 'S-123', uniqueId: ' ' });
    expect(added.status).toBe(303);
    const id = new URL(added.location!, stack.url).searchParams.get('added')!;
    expect(await findDriver(db(), mine, id)).toMatchObject({ name: 'Bo Lindqvist', phone: '+46 70 123 45 67', licenseNumber: 'S-123', uniqueId: null });
    expect((await me.get(added.location!)).text).toContain('Driver <strong>Bo Lindqvist</strong> added.');

    const taken = await me.post(`/dashboard/drivers/${id}`, { name: 'Bo Lindqvist', phone: '', licenseNumber: '', uniqueId: 'IB-7' });
    expect(taken.status).toBe(409);
    expect(taken.text).toContain('another driver of this account has uniqueId IB-7');
    expect((await findDriver(db(), mine, id))!.uniqueId).toBeNull();

    const edited = await me.post(`/dashboard/drivers/${id}`, { name: 'Bo L.', phone: '', licenseNumber: 'S-124', uniqueId: 'IB-8' });
    expect(edited.status).toBe(303);
    expect(await findDriver(db(), mine, id)).toMatchObject({ name: 'Bo L.', phone: '', licenseNumber: 'S-124', uniqueId: 'IB-8' });

    await me.get(`/dashboard/devices/${myDevice}`);
    const blank = { name: 'Van 1', plate: '', driverId: id };
    expect((await me.post(`/dashboard/devices/${myDevice}`, blank)).status).toBe(303);
    const list = (await me.get('/dashboard/drivers')).text;
    expect(list).toMatch(new RegExp(`<td data-label="Unit"><a href="/dashboard/devices/${myDevice}">Van 1</a></td>`));
    expect(list).not.toContain('Their driver');
  });

  test('deleting a driver takes them off their unit', async () => {
    const d = await createDriver(db(), mine, { name: 'Short stay', phone: '', licenseNumber: '', uniqueId: null });
    await me.get(`/dashboard/devices/${myDevice}`);
    await me.post(`/dashboard/devices/${myDevice}`, { name: 'Van 1', plate: '', driverId: d.id });
    await me.get(`/dashboard/drivers/${d.id}`);
    const res = await me.post(`/dashboard/drivers/${d.id}/delete`, {});
    expect(res.status).toBe(303);
    expect((await me.get(res.location!)).text).toContain('Driver deleted.');
    expect(await findDriver(db(), mine, d.id)).toBeNull();
    expect(await deviceDriver(db(), myDevice)).toBeNull();
  });

  test('another account’s driver is a 404 to read, edit and delete, and never named in a notice', async () => {
    expect((await me.get(`/dashboard/drivers/${their.driver}`)).status).toBe(404);
    await me.get('/dashboard/drivers');
    expect((await me.post(`/dashboard/drivers/${their.driver}`, { name: 'Hijacked', phone: '', licenseNumber: '', uniqueId: '' })).status).toBe(404);
    expect((await me.post(`/dashboard/drivers/${their.driver}/delete`, {})).status).toBe(404);
    expect((await me.get(`/dashboard/drivers?added=${their.driver}`)).text).not.toContain('Their driver');
    expect(await findDriver(db(), theirs, their.driver)).toMatchObject({ name: 'Their driver' });
    const before = (await listDrivers(db(), mine, null, 100)).length;
    expect((await me.post('/dashboard/drivers', { name: 'Forged', _csrf: null })).status).toBe(403);
    expect(await listDrivers(db(), mine, null, 100)).toHaveLength(before);
  });
});
