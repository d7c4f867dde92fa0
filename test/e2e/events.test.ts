// Events end to end: simulated devices speak GT06, Teltonika, H02 and OsmAnd over real TCP and
// HTTP to a tracker on PostgreSQL; every event type comes out through GET /events, the ones that
// need attention as alerts through GET /alerts, and as signed webhooks to each account's local
// receiver; a second account sees only its own.
import { describe, expect, test, beforeAll, afterAll } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import request from 'supertest';
import { runVerb } from '../../tracker/admin/verbs.js';
import { EVENT_TYPES } from '../../tracker/events/types.js';
import type { DeviceFix } from '../../tracker/simulator/frames/fix.js';
import { gt06Alarm, gt06Heartbeat, gt06Login, gt06Position } from '../../tracker/simulator/frames/gt06.js';
import { h02Link } from '../../tracker/simulator/frames/h02.js';
import { osmandQuery } from '../../tracker/simulator/frames/osmand.js';
import { fmbIo, teltonikaAvl, teltonikaHandshake, type AvlRecord } from '../../tracker/simulator/frames/teltonika.js';
import { DeviceClient, eventually } from '../helpers/device-client.js';
import { assertMatchesDocument } from '../helpers/openapi.js';
import { startTrackerFixture, type TrackerFixture } from '../helpers/tracker-app.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

let f: TrackerFixture;
let acme: string;
let other: string;
const receivers: Record<string, { receiver: WebhookReceiver; secret: string }> = {};
const ids: Record<string, string> = {};
const IMEI = { gt06: '359633100000801', teltonika: '359633100000802', h02: '4210058003', osmand: '359633100000804', theirs: '359633100000805' };
const V1 = '/api/public/v1';
const BASE = Math.floor(Date.now() / 1000) * 1000 - 600_000;
const DEPOT = { lat: 52.5, lng: 13.3 };
/** Outside the depot's 200 m, and near enough to drive there in 10 s (a farther fix would be a GPS jump). */
const STREET = { lat: 52.503, lng: 13.3 };

const at = (s: number, speed: number, where = STREET): DeviceFix => ({ time: new Date(BASE + s * 1000), ...where, speed, heading: 0, satellites: 9 });

type Event = { id: number; type: string; deviceId: string; position: { lat: number; lng: number; timestamp: string } | null; alert: { severity: string; message: string } | null; data: Record<string, unknown> };
async function events(account = acme): Promise<Event[]> {
  const res = await f.as(account).get(`${V1}/events`);
  expect(res.status).toBe(200);
  assertMatchesDocument('get', `${V1}/events`, 200, res.body);
  return res.body.data as Event[];
}
const ofDevice = async (device: string, account = acme) => (await events(account)).filter((e) => e.deviceId === ids[device]);
const typesOf = async (device: string, account = acme) => (await ofDevice(device, account)).map((e) => e.type).reverse();

async function api(method: 'post' | 'patch', path: string, body: object, account = acme) {
  const res = await f.as(account)[method](path).send(body);
  expect(res.status).toBeLessThan(300);
  return res.body as { id: string };
}

beforeAll(async () => {
  f = await startTrackerFixture('postgres', { DEVICE_TIMEOUT_SECONDS: '60', DEVICE_OFFLINE_GRACE_SECONDS: '0', WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' });
  acme = await f.account('Acme');
  other = await f.account('Other');
  for (const account of [acme, other]) {
    const receiver = await WebhookReceiver.start();
    const { secret } = (await runVerb(f.tracker.ctx, 'webhooks add', { account, url: receiver.url() })) as { secret: string };
    receivers[account] = { receiver, secret };
  }
  for (const [name, imei] of Object.entries(IMEI)) ids[name] = await f.device(name === 'theirs' ? other : acme, imei, `${name} unit`);
  // The account's rule inputs, through the API as an integrator would set them.
  await api('post', `${V1}/geofences`, { name: 'Depot', shape: { type: 'circle', center: DEPOT, radius: 200 } });
  await api('post', `${V1}/rules`, { name: 'Engine on above 50', severity: 'critical', condition: { and: [{ '==': [{ var: 'attributes.ignition' }, true] }, { '>': [{ var: 'speed' }, 50] }] }, deviceIds: [ids.gt06] });
  await api('patch', `${V1}/devices/${ids.teltonika}/settings`, { fuelTankLitres: 100, fuelLowPercent: 20, maintenance: { odometer: { everyKm: 10_000 } } });
  await api('patch', `${V1}/devices/${ids.osmand}/settings`, { maintenance: { engineHours: { start: 0, every: 250 } } });
});
afterAll(async () => {
  await f.close();
  for (const { receiver } of Object.values(receivers)) await receiver.close();
});

describe('GT06 over TCP', () => {
  test('online, geofence enter and exit, speeding, a custom rule, SOS, offline', async () => {
    const d = await DeviceClient.open(f.tracker.ingest.ports.device!);
    let serial = 1;
    d.send(gt06Login(IMEI.gt06, serial++));
    await d.read(10);
    // Each ACK is sent after COMMIT, so the events of that frame are stored when it arrives.
    const send = async (frame: Buffer) => {
      d.send(frame);
      await d.read(10);
    };
    await send(gt06Position(at(0, 30), { ignition: true }, serial++));
    await send(gt06Position(at(10, 20, DEPOT), { ignition: true }, serial++));
    await send(gt06Position(at(20, 30), { ignition: true }, serial++));
    for (const [s, speed] of [[30, 100], [36, 110], [42, 120], [60, 40]] as const) await send(gt06Position(at(s, speed), { ignition: true }, serial++));
    await send(gt06Alarm(at(70, 0), 'sos', { ignition: false }, serial++));
    d.close();
    expect(await eventually(() => typesOf('gt06'), (t) => t.includes('device_offline'))).toEqual([
      'device_online', 'geofence_enter', 'geofence_exit', 'custom_rule_triggered', 'speeding', 'sos', 'device_offline',
    ]);
    const list = await ofDevice('gt06');
    const byType = Object.fromEntries(list.map((e) => [e.type, e]));
    expect(byType.geofence_enter).toMatchObject({ position: { lat: expect.closeTo(DEPOT.lat, 5), timestamp: new Date(BASE + 10_000).toISOString() }, data: { geofenceName: 'Depot' }, alert: null });
    expect(byType.speeding).toMatchObject({ data: { speed: 110, speedLimit: 90 }, alert: { severity: 'warning' } });
    expect(byType.custom_rule_triggered).toMatchObject({ data: { ruleName: 'Engine on above 50' }, alert: { severity: 'critical' } });
    expect(byType.sos).toMatchObject({ alert: { severity: 'critical', message: 'SOS from gt06 unit' }, position: { timestamp: new Date(BASE + 70_000).toISOString() } });
    expect(byType.device_offline).toMatchObject({ alert: { severity: 'warning' } });
  });
});

describe('Teltonika over TCP', () => {
  test('a fuel theft, low fuel, maintenance by odometer and a panic record', async () => {
    const d = await DeviceClient.open(f.tracker.ingest.ports.device!);
    d.send(teltonikaHandshake(IMEI.teltonika));
    expect(await d.read(1)).toEqual(Buffer.from([1]));
    const record = (s: number, fuelLevel: number, odometerKm: number, priority = 0): AvlRecord => ({
      fix: at(s, 40), priority, io: [...fmbIo({ ignition: true, fuelLevel }), { id: 16, value: odometerKm * 1000, width: 4 }],
    });
    // One noisy sample (45 %) first: it must not count as a theft.
    const readings: [number, number][] = [[0, 60], [10, 60], [20, 45], [30, 60], [40, 60], [50, 40], [60, 40], [70, 15], [80, 15]];
    for (const [s, level] of readings) {
      d.send(teltonikaAvl([record(s, level, s < 70 ? 9_999 : 10_000.5)], 0x8e));
      expect(await d.read(4)).toEqual(Buffer.from([0, 0, 0, 1]));
    }
    d.send(teltonikaAvl([record(90, 15, 10_001, 2)], 0x8e));
    await d.read(4);
    d.close();
    const types = await typesOf('teltonika');
    expect(types.filter((t) => t !== 'device_offline')).toEqual(['device_online', 'fuel_alert_critical', 'maintenance_due', 'fuel_alert', 'sos']);
    const byType = Object.fromEntries((await ofDevice('teltonika')).map((e) => [e.type, e]));
    expect(byType.fuel_alert_critical).toMatchObject({ data: { dropLitres: 20, fuelLitres: 40 }, alert: { severity: 'critical' }, position: { timestamp: new Date(BASE + 60_000).toISOString() } });
    expect(byType.fuel_alert).toMatchObject({ data: { fuelPercent: 15, lowPercent: 20 }, alert: { severity: 'info' } });
    expect(byType.maintenance_due).toMatchObject({ data: { kind: 'odometer', dueAt: 10_000 }, alert: { severity: 'info' } });
  });
});

describe('alarms without a fix, and OsmAnd', () => {
  test('an H02 LINK heartbeat carrying SOS raises it, with no position known', async () => {
    const d = await DeviceClient.open(f.tracker.ingest.ports.device!);
    d.send(h02Link(IMEI.h02, new Date(), { alarm: 'sos' }));
    const [sos] = await eventually(async () => (await ofDevice('h02')).filter((e) => e.type === 'sos'), (l) => l.length === 1);
    expect(sos).toMatchObject({ position: null, alert: { severity: 'critical' } });
    d.close();
  });

  test('OsmAnd: maintenance by engine hours, and alarm=sos in a report without coordinates', async () => {
    const http = request(`http://127.0.0.1:${f.tracker.ingest.ports.osmand}`);
    // Traccar's `hours` parameter is milliseconds; the schedule is 250 hours.
    for (const [s, hours] of [[0, 249.5], [10, 250.5]] as const) {
      const res = await http.get('/').query({ ...osmandQuery(IMEI.osmand, at(s, 30)), hours: String(hours * 3_600_000) });
      expect(res.status).toBe(200);
    }
    expect((await http.get('/').query({ id: IMEI.osmand, alarm: 'sos' })).status).toBe(200);
    const types = await eventually(() => typesOf('osmand'), (t) => t.includes('device_online'));
    expect([...types].sort()).toEqual(['device_online', 'maintenance_due', 'sos']);
    const sos = (await ofDevice('osmand')).find((e) => e.type === 'sos')!;
    // Where the phone last was.
    expect(sos.position).toMatchObject({ lat: STREET.lat, timestamp: new Date(BASE + 10_000).toISOString() });
  });
});

describe('two accounts', () => {
  test('each sees only its own events and alerts', async () => {
    const d = await DeviceClient.open(f.tracker.ingest.ports.device!);
    d.send(gt06Login(IMEI.theirs, 1));
    await d.read(10);
    d.send(gt06Heartbeat({ alarm: 'sos' }, 2));
    await d.read(10);
    d.close();
    expect(await eventually(() => typesOf('theirs', other), (t) => t.includes('device_offline'))).toEqual(['device_online', 'sos', 'device_offline']);
    expect((await events(other)).every((e) => e.deviceId === ids.theirs)).toBe(true);
    expect((await events()).some((e) => e.deviceId === ids.theirs)).toBe(false);
    const alerts = async (account: string) => (await f.as(account).get(`${V1}/alerts`)).body.data as { deviceId: string; type: string; severity: string }[];
    expect((await alerts(other)).map((a) => `${a.type}:${a.severity}`).sort()).toEqual(['device_offline:warning', 'sos:critical']);
    const mine = await alerts(acme);
    expect(mine.some((a) => a.deviceId === ids.theirs)).toBe(false);
    expect(new Set(mine.map((a) => a.type))).toEqual(new Set(['sos', 'speeding', 'custom_rule_triggered', 'fuel_alert_critical', 'fuel_alert', 'maintenance_due', 'device_offline']));
  });
});

describe('webhooks', () => {
  test('every event of each account reaches its webhook, signed, in the shape GET /events lists it', async () => {
    for (const account of [acme, other]) {
      const { receiver, secret } = receivers[account]!;
      const verifier = new Webhook(secret);
      const ids = (list: { id: number }[]) => list.map((e) => e.id).sort((a, b) => a - b);
      // A device's offline event may still be on its way: compare once both sides agree.
      const { listed, received } = await eventually(
        async () => ({ listed: await events(account), received: receiver.received.map((r) => verifier.verify(r.body, r.headers as Record<string, string>) as Event & { device: { id: string } }) }),
        (v) => JSON.stringify(ids(v.listed)) === JSON.stringify(ids(v.received)),
        10_000,
      );
      expect(ids(received)).toEqual(ids(listed));
      for (const e of listed) {
        const sent = received.find((r) => r.id === e.id)!;
        expect(sent).toMatchObject({ type: e.type, device: { id: e.deviceId }, position: e.position, data: e.data });
        expect(sent.alert ?? null).toEqual(e.alert && { id: expect.any(Number), severity: e.alert.severity, message: e.alert.message });
      }
    }
    const types = new Set((await events(acme)).map((e) => e.type));
    expect([...types].sort()).toEqual([...EVENT_TYPES].sort());
  });
});
