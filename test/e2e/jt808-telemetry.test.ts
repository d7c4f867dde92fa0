// JT/T 808 end to end over real TCP on the shared device port: a terminal registers (0x8100 with the
// auth code), authenticates and reports a position; each answer arrives byte for byte as the
// protocol expects, after the position is stored, and the API shows the position.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { buildMessage } from '../../tracker/protocols/jt808/message.js';
import { jt808Auth, jt808Position, jt808Register, jt808Terminal } from '../../tracker/simulator/frames/jt808.js';
import { DeviceClient } from '../helpers/device-client.js';
import { startTrackerFixture, type TrackerFixture } from '../helpers/tracker-app.js';

const IMEI = '864507033191521';
const V1 = '/api/public/v1';
const BASE = Math.floor(Date.now() / 1000) * 1000 - 120_000;
const fix = { time: new Date(BASE), lat: 22.543096, lng: 114.057865, speed: 42, heading: 270, altitude: 15, satellites: 10 };
const TERMINAL = jt808Terminal(IMEI);

let f: TrackerFixture;
let account: string;
let device: string;
let d: DeviceClient;

/** The platform's general answer 0x8001 in the 2019 header: the message's serial and id, result 0. */
function generalAnswer(serial: number, type: number): Buffer {
  return buildMessage(0x8001, TERMINAL, 0, Buffer.from([serial >> 8, serial & 0xff, type >> 8, type & 0xff, 0]), 1);
}

beforeAll(async () => {
  f = await startTrackerFixture('postgres', { DEVICE_TIMEOUT_SECONDS: '60' });
  account = await f.account('Fleet');
  device = await f.device(account, IMEI, 'Truck 808');
  d = await DeviceClient.open(f.tracker.ingest.ports.device!);
});
afterAll(async () => {
  d.close();
  await f.close();
});

describe('JT/T 808 over TCP', () => {
  test('registration is answered 0x8100 with the auth code, authentication 0x8001', async () => {
    d.send(jt808Register(IMEI, 1));
    const registered = buildMessage(0x8100, TERMINAL, 0, Buffer.concat([Buffer.from([0x00, 0x01, 0x00]), Buffer.from(IMEI, 'ascii')]), 1);
    expect(await d.read(registered.length)).toEqual(registered);
    d.send(jt808Auth(IMEI, IMEI, 2));
    const authAnswer = generalAnswer(2, 0x0102);
    expect(await d.read(authAnswer.length)).toEqual(authAnswer);
  });

  test('a location report is answered 0x8001 after it is stored, and the API shows it', async () => {
    d.send(jt808Position(IMEI, fix, { ignition: true, fuelLevel: 55 }, 3, 20_000));
    const answer = generalAnswer(3, 0x0200);
    expect(await d.read(answer.length)).toEqual(answer);
    const rows = await f.tracker.ctx.db.query<{ attributes: Record<string, unknown> }>('SELECT attributes FROM positions WHERE device_id = $1', [device]);
    expect(rows.map((r) => r.attributes)).toEqual([expect.objectContaining({ ignition: true, fuel: 55, odometer: 20_000_000, rssi: 25 })]);
    const body = (await f.as(account).get(`${V1}/devices/${device}`)).body as { position: { lat: number; lng: number }; lastUpdate: string };
    expect(body.position.lat).toBeCloseTo(22.543096, 6);
    expect(body.position.lng).toBeCloseTo(114.057865, 6);
    expect(body.lastUpdate).toBe(fix.time.toISOString());
  });
});
