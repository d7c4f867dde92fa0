// Ruptela end to end, a unit on a real TCP socket to a tracker on PostgreSQL: identification is
// answered, extended records are stored with their telemetry and ACKed with 0002640113bc only
// after the commit, and the unit's position shows in GET /devices/{id}.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { ruptelaIdentification, ruptelaPosition } from '../../tracker/simulator/frames/ruptela.js';
import { DeviceClient } from '../helpers/device-client.js';
import { startTrackerFixture, type TrackerFixture } from '../helpers/tracker-app.js';

const V1 = '/api/public/v1';
const IMEI = '356307042441013';
const FIX_TIME = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);

let f: TrackerFixture;
let account: string;
let deviceId: string;

beforeAll(async () => {
  f = await startTrackerFixture('postgres');
  account = await f.account('Acme');
  deviceId = await f.device(account, IMEI, 'Ruptela unit');
});
afterAll(async () => {
  await f.close();
});

describe('Ruptela over TCP', () => {
  test('identification, a record with telemetry, the ACK, the position in the API', async () => {
    const d = await DeviceClient.open(f.tracker.ingest.ports.device!);
    d.send(ruptelaIdentification(IMEI));
    expect((await d.read(6)).toString('hex')).toBe('00027301cb25');

    d.send(ruptelaPosition(IMEI, { time: FIX_TIME, lat: 54.6872, lng: 25.2797, speed: 63, heading: 181.5, altitude: 112, satellites: 11 }, { ignition: true, power: 12.6, fuelLevel: 40 }));
    expect((await d.read(6)).toString('hex')).toBe('0002640113bc');
    d.close();

    const device = await f.as(account).get(`${V1}/devices/${deviceId}`);
    expect(device.status).toBe(200);
    expect(device.body.position).toEqual({ lat: expect.closeTo(54.6872, 5), lng: expect.closeTo(25.2797, 5) });
    expect(device.body.lastUpdate).toBe(FIX_TIME.toISOString());

    const rows = await f.tracker.ctx.db.query<{ speed: number; attributes: Record<string, unknown> }>('SELECT speed, attributes FROM positions WHERE device_id = $1', [deviceId]);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.speed).toBeCloseTo(63, 5);
    expect(rows[0]!.attributes).toMatchObject({ ignition: true, power: 12.6, fuelLevel: 40, hdop: 0.9 });
  });
});
