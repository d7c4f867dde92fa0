// Suntech and Meitrack end to end, units on real TCP sockets to the shared device port of a
// tracker on PostgreSQL: each is recognised from its first report, identified by the id inside it,
// answered the way it expects (Meitrack's AAC keep-alive gets its confirmation; Suntech and
// Meitrack reports get nothing), and its position, telemetry and SOS reach the API.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { meitrackChecksum } from '../../tracker/protocols/meitrack/checksum.js';
import { meitrackAlarm, meitrackHeartbeat, meitrackPosition } from '../../tracker/simulator/frames/meitrack.js';
import { suntechAlarm, suntechDateTime, suntechPosition } from '../../tracker/simulator/frames/suntech.js';
import { DeviceClient, eventually } from '../helpers/device-client.js';
import { startTrackerFixture, type TrackerFixture } from '../helpers/tracker-app.js';

const V1 = '/api/public/v1';
const SUNTECH_ID = '0912345678';
const MEITRACK_IMEI = '861234567890123';
const FIX_TIME = new Date(Math.floor(Date.now() / 1000) * 1000 - 120_000);
const ALARM_TIME = new Date(FIX_TIME.getTime() + 30_000);

let f: TrackerFixture;
let account: string;

beforeAll(async () => {
  f = await startTrackerFixture('postgres');
  account = await f.account('Acme');
});
afterAll(async () => {
  await f.close();
});

const storedAttributes = (deviceId: string) =>
  f.tracker.ctx.db.query<{ attributes: Record<string, unknown> }>('SELECT attributes FROM positions WHERE device_id = $1 ORDER BY device_time', [deviceId]);
const sosEvents = async (deviceId: string) =>
  ((await f.as(account).get(`${V1}/events`)).body.data as { type: string; deviceId: string }[]).filter((e) => e.deviceId === deviceId && e.type === 'sos');

describe('Suntech over TCP', () => {
  test('a universal STT report, then an SOS alert; the unit is sent nothing back', async () => {
    const deviceId = await f.device(account, SUNTECH_ID, 'Suntech unit');
    const d = await DeviceClient.open(f.tracker.ingest.ports.device!);
    d.send(suntechPosition(SUNTECH_ID, { time: FIX_TIME, lat: -23.55052, lng: -46.63331, speed: 52.4, heading: 181.5 }, { ignition: true }));
    const device = await eventually(async () => (await f.as(account).get(`${V1}/devices/${deviceId}`)).body, (b) => b.position !== null && b.position !== undefined);
    expect(device.position).toEqual({ lat: expect.closeTo(-23.55052, 5), lng: expect.closeTo(-46.63331, 5) });
    expect(device.lastUpdate).toBe(FIX_TIME.toISOString());

    d.send(suntechAlarm(SUNTECH_ID, { time: ALARM_TIME, lat: -23.5506, lng: -46.6334, speed: 0, heading: 0 }, 'sos'));
    expect(await eventually(() => sosEvents(deviceId), (l) => l.length === 1)).toHaveLength(1);
    // Suntech units expect no acknowledgement.
    await expect(d.read(1, 300)).rejects.toThrow();
    d.close();
    const [first] = await storedAttributes(deviceId);
    expect(first!.attributes).toMatchObject({ ignition: true, input: 1, rssi: 21 });
  });

  test('a stray "\\n\\r" in a UEX report\'s serial data does not end the connection: the unit\'s next report is stored', async () => {
    const id = '0912345679';
    const deviceId = await f.device(account, id, 'Suntech with a serial sensor');
    const d = await DeviceClient.open(f.tracker.ingest.ports.device!);
    // The serial payload holds "\n\r": the '\r' ends the report there, as the unit's own framing
    // does, and what follows (";76;113;4.1;1") is a tail with no type, not a report of unit 76.
    const uex = `ST300UEX;${id};04;408;${suntechDateTime(FIX_TIME).join(';')};1a2b3;-23.550520;-046.633310;052.400;181.50;9;1;123456;12.60;100010;12;TEMP\n\r;76;113;4.1;1\r`;
    d.send(Buffer.from(uex, 'latin1'));
    await eventually(() => storedAttributes(deviceId), (rows) => rows.length === 1);
    d.send(suntechPosition(id, { time: ALARM_TIME, lat: -23.5506, lng: -46.6334, speed: 10, heading: 90 }));
    const stored = await eventually(() => storedAttributes(deviceId), (rows) => rows.length === 2);
    expect(stored).toHaveLength(2);
    expect(d.closed).toBe(false);
    d.close();
  });
});

describe('Meitrack over TCP', () => {
  test('the AAC keep-alive is confirmed, an AAA report stored without an answer, event 1 raises SOS', async () => {
    const deviceId = await f.device(account, MEITRACK_IMEI, 'Meitrack unit');
    const d = await DeviceClient.open(f.tracker.ingest.ports.device!);
    d.send(meitrackHeartbeat(MEITRACK_IMEI));
    const head = `@@z27,${MEITRACK_IMEI},AAC,1*`;
    const expected = `${head}${meitrackChecksum(Buffer.from(head))}\r\n`;
    expect((await d.read(expected.length)).toString('latin1')).toBe(expected);

    d.send(meitrackPosition(MEITRACK_IMEI, { time: FIX_TIME, lat: 52.5, lng: 13.3, speed: 37, heading: 90 }, { ignition: true, power: 13.95 }));
    const device = await eventually(async () => (await f.as(account).get(`${V1}/devices/${deviceId}`)).body, (b) => b.position !== null && b.position !== undefined);
    expect(device.position).toEqual({ lat: expect.closeTo(52.5, 5), lng: expect.closeTo(13.3, 5) });
    expect(device.lastUpdate).toBe(FIX_TIME.toISOString());

    d.send(meitrackAlarm(MEITRACK_IMEI, { time: ALARM_TIME, lat: 52.5001, lng: 13.3001, speed: 0, heading: 0 }, 'sos'));
    expect(await eventually(() => sosEvents(deviceId), (l) => l.length === 1)).toHaveLength(1);
    await expect(d.read(1, 300)).rejects.toThrow();
    d.close();
    const [first] = await storedAttributes(deviceId);
    expect(first!.attributes).toMatchObject({ event: 35, input: 4, power: 13.95, battery: 4.01 });
  });
});
