// Queclink @Track end to end, a unit on a real TCP socket to a tracker on PostgreSQL: the heartbeat
// identifies the unit and is answered "+SACK:GTHBD,<version>,<count>$"; a GTFRI report is stored
// with its telemetry and moves the unit (GET /devices/{id}); a GTSOS raises the sos event.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { gl200Alarm, gl200Heartbeat, gl200Position } from '../../tracker/simulator/frames/gl200.js';
import { DeviceClient, eventually } from '../helpers/device-client.js';
import { startTrackerFixture, type TrackerFixture } from '../helpers/tracker-app.js';

const V1 = '/api/public/v1';
const IMEI = '862599050680717';
const FIX_TIME = new Date(Math.floor(Date.now() / 1000) * 1000 - 120_000);
const SOS_TIME = new Date(FIX_TIME.getTime() + 30_000);
const sack = (count: string) => `+SACK:GTHBD,060102,${count}$`;

let f: TrackerFixture;
let account: string;
let deviceId: string;

beforeAll(async () => {
  f = await startTrackerFixture('postgres');
  account = await f.account('Acme');
  deviceId = await f.device(account, IMEI, 'GV300 unit');
});
afterAll(async () => {
  await f.close();
});

describe('@Track over TCP', () => {
  test('heartbeat answered, a fixed report stored and shown, an SOS raised', async () => {
    const d = await DeviceClient.open(f.tracker.ingest.ports.device!);
    d.send(gl200Heartbeat(IMEI, new Date(), 0x11f0));
    expect((await d.read(sack('11F0').length)).toString('latin1')).toBe(sack('11F0'));

    d.send(gl200Position(IMEI, { time: FIX_TIME, lat: -0.951295, lng: -78.691767, speed: 37.5, heading: 274, altitude: 2963.1 }, { power: 12.6, batteryLevel: 90 }, 0x11f1));
    d.send(gl200Alarm(IMEI, { time: SOS_TIME, lat: -0.951395, lng: -78.691867, speed: 0, heading: 0 }, 'sos', 0x11f2));
    // Reports get no answer by default; the next heartbeat's answer says they were read.
    d.send(gl200Heartbeat(IMEI, new Date(), 0x11f3));
    expect((await d.read(sack('11F3').length)).toString('latin1')).toBe(sack('11F3'));
    d.close();

    const device = await eventually(async () => (await f.as(account).get(`${V1}/devices/${deviceId}`)).body, (b) => b.lastUpdate === SOS_TIME.toISOString());
    expect(device.position).toEqual({ lat: expect.closeTo(-0.951395, 5), lng: expect.closeTo(-78.691867, 5) });

    const events = async () => ((await f.as(account).get(`${V1}/events`)).body.data as { type: string; deviceId: string }[]).filter((e) => e.deviceId === deviceId);
    expect(await eventually(async () => (await events()).filter((e) => e.type === 'sos'), (l) => l.length === 1)).toHaveLength(1);

    const rows = await f.tracker.ctx.db.query<{ speed: number; heading: number; attributes: Record<string, unknown> }>(
      'SELECT speed, heading, attributes FROM positions WHERE device_id = $1 ORDER BY device_time',
      [deviceId],
    );
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({ speed: expect.closeTo(37.5, 5), heading: 274, attributes: expect.objectContaining({ power: 12.6, batteryLevel: 90 }) });
    expect(rows[1]!.attributes).toMatchObject({ alarm: 'sos' });
  });
});
