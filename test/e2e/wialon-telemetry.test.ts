// Wialon IPS end to end, a unit on a real TCP socket to a tracker on PostgreSQL: a 2.0 login is
// answered #AL#1, a data packet is stored with its telemetry and answered #AD#1 after the commit,
// a black box batch #AB#2, and the unit's position shows in GET /devices/{id}; an unknown unit is
// refused #AL#0.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { wialonBlackBox, wialonLogin, wialonPosition } from '../../tracker/simulator/frames/wialon.js';
import { DeviceClient } from '../helpers/device-client.js';
import { startTrackerFixture, type TrackerFixture } from '../helpers/tracker-app.js';

const V1 = '/api/public/v1';
const IMEI = '861230043209218';
const BASE = Math.floor(Date.now() / 1000) * 1000 - 300_000;
const fix = (offset: number, lat: number) => ({ time: new Date(BASE + offset), lat, lng: -3.7038, speed: 45, heading: 90, altitude: 650, satellites: 9 });

let f: TrackerFixture;
let account: string;
let deviceId: string;

beforeAll(async () => {
  f = await startTrackerFixture('postgres');
  account = await f.account('Acme');
  deviceId = await f.device(account, IMEI, 'Wialon unit');
});
afterAll(async () => {
  await f.close();
});

describe('Wialon IPS over TCP', () => {
  test('login, a data packet, a black box batch, each answered; the position in the API', async () => {
    const d = await DeviceClient.open(f.tracker.ingest.ports.device!);
    d.send(wialonLogin(IMEI, 'NA'));
    expect((await d.read(7)).toString('latin1')).toBe('#AL#1\r\n');

    // The black box holds older messages; the live one is the newest.
    d.send(wialonBlackBox([fix(0, 40.41), fix(60_000, 40.415)]));
    expect((await d.read(7)).toString('latin1')).toBe('#AB#2\r\n');
    d.send(wialonPosition(fix(120_000, 40.4168), { ignition: true, power: 12.6, alarm: 'sos' }));
    expect((await d.read(7)).toString('latin1')).toBe('#AD#1\r\n');
    d.close();

    const device = await f.as(account).get(`${V1}/devices/${deviceId}`);
    expect(device.status).toBe(200);
    expect(device.body.position).toEqual({ lat: expect.closeTo(40.4168, 5), lng: expect.closeTo(-3.7038, 5) });
    expect(device.body.lastUpdate).toBe(new Date(BASE + 120_000).toISOString());

    const rows = await f.tracker.ctx.db.query<{ attributes: Record<string, unknown> }>('SELECT attributes FROM positions WHERE device_id = $1 ORDER BY device_time', [deviceId]);
    expect(rows.map((r) => r.attributes.archive)).toEqual([true, true, undefined]);
    expect(rows[2]!.attributes).toMatchObject({ alarm: 'sos', input: 1, hdop: 0.9, io: { pwr_ext: 12.6 } });
  });

  test('an unknown unit is refused #AL#0', async () => {
    const d = await DeviceClient.open(f.tracker.ingest.ports.device!);
    d.send(wialonLogin('861230043209299', 'NA'));
    expect((await d.read(7)).toString('latin1')).toBe('#AL#0\r\n');
    d.close();
  });
});
