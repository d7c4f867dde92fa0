// GPS103 and TK103 end to end, units on real TCP sockets to the shared device port of a tracker on
// PostgreSQL: the protocol is recognised from the first frame, the handshake and login are
// answered with the exact bytes the units wait for, a report is stored, an alarm raises its event,
// and GET /devices/{id} shows the position.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { gps103Alarm, gps103Handshake, gps103Heartbeat, gps103Position } from '../../tracker/simulator/frames/gps103.js';
import { tk103Alarm, tk103Handshake, tk103Login, tk103Position } from '../../tracker/simulator/frames/tk103.js';
import { DeviceClient, eventually } from '../helpers/device-client.js';
import { startTrackerFixture, type TrackerFixture } from '../helpers/tracker-app.js';

const V1 = '/api/public/v1';
const GPS103_IMEI = '864502039876543';
const TK103_ID = '013912349876';
const T0 = Math.floor(Date.now() / 1000) * 1000 - 180_000;

let f: TrackerFixture;
let account: string;

beforeAll(async () => {
  f = await startTrackerFixture('postgres');
  account = await f.account('Acme');
});
afterAll(async () => {
  await f.close();
});

const sosEvents = async (deviceId: string) =>
  ((await f.as(account).get(`${V1}/events`)).body.data as { type: string; deviceId: string }[]).filter((e) => e.deviceId === deviceId && e.type === 'sos');

describe('GPS103 over TCP', () => {
  test('handshake answered LOAD, a report stored, help me answered and raised, heartbeat answered ON', async () => {
    const deviceId = await f.device(account, GPS103_IMEI, 'GPS103 unit');
    const d = await DeviceClient.open(f.tracker.ingest.ports.device!);
    d.send(gps103Handshake(GPS103_IMEI));
    expect((await d.read(4)).toString('latin1')).toBe('LOAD');

    const fix = { time: new Date(T0), lat: 45.4642, lng: 9.19, speed: 46.3, heading: 180 };
    d.send(gps103Position(GPS103_IMEI, fix, { ignition: true }));
    const sos = { ...fix, time: new Date(T0 + 60_000), lat: 45.47 };
    d.send(gps103Alarm(GPS103_IMEI, sos, 'sos'));
    // A tracker report is not answered: the first bytes back are the SOS acknowledgement.
    const ack = `**,imei:${GPS103_IMEI},E;`;
    expect((await d.read(ack.length)).toString('latin1')).toBe(ack);
    d.send(gps103Heartbeat(GPS103_IMEI));
    expect((await d.read(2)).toString('latin1')).toBe('ON');
    d.close();

    expect(await eventually(() => sosEvents(deviceId), (l) => l.length === 1)).toHaveLength(1);
    const device = await f.as(account).get(`${V1}/devices/${deviceId}`);
    expect(device.status).toBe(200);
    expect(device.body.position).toEqual({ lat: expect.closeTo(45.47, 5), lng: expect.closeTo(9.19, 5) });
    expect(device.body.lastUpdate).toBe(sos.time.toISOString());
  });
});

describe('TK103 over TCP', () => {
  test('BP00 answered AP01HSO, BP05 answered AP05, reports and a BO01 SOS stored', async () => {
    const deviceId = await f.device(account, TK103_ID, 'TK103 unit');
    const d = await DeviceClient.open(f.tracker.ingest.ports.device!);
    d.send(tk103Handshake(TK103_ID));
    const hso = `(${TK103_ID}AP01HSO)`;
    expect((await d.read(hso.length)).toString('latin1')).toBe(hso);

    const login = { time: new Date(T0), lat: 38.7223, lng: -9.1393, speed: 0, heading: 0 };
    d.send(tk103Login(TK103_ID, '359710019876543', login));
    const ap05 = `(${TK103_ID}AP05)`;
    expect((await d.read(ap05.length)).toString('latin1')).toBe(ap05);

    const fix = { time: new Date(T0 + 60_000), lat: 38.73, lng: -9.15, speed: 52.4, heading: 45.5 };
    d.send(tk103Position(TK103_ID, fix, { ignition: true }));
    d.send(tk103Alarm(TK103_ID, { ...fix, time: new Date(T0 + 90_000), lat: 38.74 }, 'sos'));

    expect(await eventually(() => sosEvents(deviceId), (l) => l.length === 1)).toHaveLength(1);
    // Neither report is answered.
    expect(d.pending()).toHaveLength(0);
    d.close();
    const device = await f.as(account).get(`${V1}/devices/${deviceId}`);
    expect(device.status).toBe(200);
    expect(device.body.position).toEqual({ lat: expect.closeTo(38.74, 5), lng: expect.closeTo(-9.15, 5) });
    expect(device.body.lastUpdate).toBe(new Date(T0 + 90_000).toISOString());
  });
});
