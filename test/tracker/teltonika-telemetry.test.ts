// Teltonika telemetry end to end: a unit on a real TCP socket to the tracker on PostgreSQL. A
// record's decoded telemetry (CAN values, a harsh-braking alarm, an EYE sensor, the serving cell)
// is stored with the position and fires a rule on the alarm; a panic record without a fix raises
// SOS without moving the device; a command response is stored at the last fix, not moving it.
import { describe, expect, test, beforeAll, afterAll } from '@jest/globals';
import { teltonikaAvl, teltonikaCommandResponse, teltonikaHandshake, type AvlRecord } from '../../tracker/simulator/frames/teltonika.js';
import { DeviceClient, eventually } from '../helpers/device-client.js';
import { startTrackerFixture, type TrackerFixture } from '../helpers/tracker-app.js';

let f: TrackerFixture;
let acme: string;
let van: string;
let d: DeviceClient;
const IMEI = '359633100000951';
const V1 = '/api/public/v1';
const T0 = Math.floor(Date.now() / 1000) * 1000 - 600_000;
const STREET = { lat: 52.52, lng: 13.405 };

type Event = { type: string; deviceId: string; data: Record<string, unknown>; position: { lat: number; lng: number } | null };
const eventsOf = async (type: string) => ((await f.as(acme).get(`${V1}/events?type=${type}`)).body.data as Event[]).filter((e) => e.deviceId === van);
const device = async () => (await f.as(acme).get(`${V1}/devices/${van}`)).body as { position: { lat: number; lng: number } | null; lastUpdate: string };
const stored = async () =>
  (await f.tracker.ctx.db.query<{ device_time: Date; valid: boolean; lat: number; lng: number; attributes: Record<string, unknown> }>('SELECT device_time, valid, lat, lng, attributes FROM positions WHERE device_id = $1 ORDER BY device_time', [van]));

beforeAll(async () => {
  f = await startTrackerFixture('postgres');
  acme = await f.account('Acme');
  van = await f.device(acme, IMEI, 'Reefer van');
  d = await DeviceClient.open(f.tracker.ingest.ports.device!);
  d.send(teltonikaHandshake(IMEI));
  expect(await d.read(1)).toEqual(Buffer.from([1]));
});
afterAll(async () => {
  d.close();
  await f.close();
});

describe('a Teltonika unit over TCP', () => {
  test("a record's telemetry is stored in the vocabulary's units and its harsh-braking alarm fires a rule", async () => {
    const rule = await f.as(acme).post(`${V1}/rules`).send({ name: 'Harsh braking', severity: 'warning', condition: { in: ['hardBraking', { var: 'attributes.alarm' }] } });
    expect(rule.status).toBe(201);
    const record: AvlRecord = {
      fix: { time: new Date(T0), ...STREET, speed: 42, heading: 90, satellites: 9 },
      io: [
        { id: 253, value: 2, width: 1 }, // green driving: braking
        { id: 85, value: 2100, width: 2 }, // CAN engine speed
        { id: 10800, value: 0x10000 - 1187, width: 2 }, // EYE sensor: -11.87 °C
        { id: 205, value: 902, width: 2 },
        { id: 206, value: 1, width: 2 },
        { id: 241, value: 24602, width: 4 },
      ],
    };
    d.send(teltonikaAvl([record], 0x8e));
    expect(await d.read(4)).toEqual(Buffer.from([0, 0, 0, 1])); // after commit
    const [row] = await stored();
    expect(row).toMatchObject({ valid: true, lat: STREET.lat, lng: STREET.lng });
    expect(row!.attributes).toMatchObject({
      alarm: 'hardBraking',
      rpm: 2100,
      io: { eyeTemp1: -11.87, 253: 2 },
      network: { cellTowers: [{ cellId: 902, locationAreaCode: 1, mobileCountryCode: 246, mobileNetworkCode: 2 }] },
    });
    const fired = await eventually(() => eventsOf('custom_rule_triggered'), (l) => l.length > 0);
    expect(fired).toEqual([expect.objectContaining({ data: expect.objectContaining({ ruleName: 'Harsh braking' }) })]);
  });

  test('a panic record without a fix raises SOS and does not move the device', async () => {
    // A unit without a fix sends satellites 0 and whatever coordinates it last had (here none).
    const record: AvlRecord = { fix: { time: new Date(T0 + 10_000), lat: 0, lng: 0, speed: 0, heading: 0, valid: false }, priority: 2 };
    d.send(teltonikaAvl([record], 0x8e));
    expect(await d.read(4)).toEqual(Buffer.from([0, 0, 0, 1]));
    const sos = await eventually(() => eventsOf('sos'), (l) => l.length > 0);
    expect(sos).toHaveLength(1);
    expect(await device()).toMatchObject({ position: STREET, lastUpdate: new Date(T0).toISOString() });
  });

  test('a command response is stored at the last valid fix with its text, not valid, and does not move the device', async () => {
    d.send(teltonikaCommandResponse('DOUT1:1 Timeout:INFINITY'));
    const rows = await eventually(stored, (r) => r.some((p) => p.attributes.result !== undefined));
    expect(rows.find((p) => p.attributes.result !== undefined)).toMatchObject({ valid: false, ...STREET, attributes: { result: 'DOUT1:1 Timeout:INFINITY' } });
    expect(await device()).toMatchObject({ position: STREET, lastUpdate: new Date(T0).toISOString() });
  });
});
