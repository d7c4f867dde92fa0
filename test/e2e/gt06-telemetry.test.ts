// GT06 telemetry end to end over real TCP: an alarm sent without a GPS fix raises its event and
// leaves the device where its last fix put it; a cell-only report is stored as an invalid position
// with the cells it heard, and does not move the device either; a position's telemetry (ACC, the
// cell) is stored with it.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { gt06CellReport, gt06LbsAlarm, gt06Login, gt06Position } from '../../tracker/simulator/frames/gt06.js';
import { DeviceClient, eventually } from '../helpers/device-client.js';
import { startTrackerFixture, type TrackerFixture } from '../helpers/tracker-app.js';

const IMEI = '359633100000901';
const V1 = '/api/public/v1';
const BASE = Math.floor(Date.now() / 1000) * 1000 - 120_000;
const fix = { time: new Date(BASE), lat: 52.52, lng: 13.405, speed: 30, heading: 90, satellites: 9 };

let f: TrackerFixture;
let account: string;
let device: string;
let d: DeviceClient;
let serial = 1;

/** Sends a frame and waits for its 10-byte ACK, which comes after the commit. */
async function send(frame: Buffer): Promise<Buffer> {
  d.send(frame);
  return d.read(10);
}
const stored = async () =>
  (
    await f.tracker.ctx.db.query<{ valid: boolean; lat: number; attributes: Record<string, unknown> }>(
      'SELECT valid, lat::float AS lat, attributes FROM positions WHERE device_id = $1 ORDER BY device_time',
      [device],
    )
  ).map((r) => ({ ...r }));
/** GET /devices/{id} still shows the first fix as the current position. */
async function expectAtFirstFix(): Promise<void> {
  const body = (await f.as(account).get(`${V1}/devices/${device}`)).body as { position: { lat: number; lng: number }; lastUpdate: string };
  expect(body.position.lat).toBeCloseTo(52.52, 6);
  expect(body.position.lng).toBeCloseTo(13.405, 6);
  expect(body.lastUpdate).toBe(fix.time.toISOString());
}

beforeAll(async () => {
  f = await startTrackerFixture('postgres', { DEVICE_TIMEOUT_SECONDS: '60' });
  account = await f.account('Fleet');
  device = await f.device(account, IMEI, 'Van 9');
  d = await DeviceClient.open(f.tracker.ingest.ports.device!);
  await send(gt06Login(IMEI, serial++));
});
afterAll(async () => {
  d.close();
  await f.close();
});

describe('GT06 telemetry over TCP', () => {
  test('a position stores its ACC state and the cell it was reported from', async () => {
    await send(gt06Position(fix, { ignition: true }, serial++));
    const [p] = await stored();
    expect(p!.valid).toBe(true);
    expect(p!.attributes).toMatchObject({
      ignition: true,
      network: { cellTowers: [{ mobileCountryCode: 460, mobileNetworkCode: 0, locationAreaCode: 10365, cellId: 8120 }] },
    });
    await expectAtFirstFix();
  });

  test('an SOS without a fix (LBS alarm 0x19) raises the sos event and does not move the device', async () => {
    const ack = await send(gt06LbsAlarm('sos', { batteryLevel: 50 }, serial++));
    expect(ack.subarray(3, 4)).toEqual(Buffer.from([0x19]));
    type Event = { type: string; position: { lat: number; lng: number } | null; alert: { severity: string } | null };
    const events = await eventually(
      async () => (await f.as(account).get(`${V1}/events`)).body.data as Event[],
      (list) => list.some((e) => e.type === 'sos'),
    );
    const sos = events.find((e) => e.type === 'sos')!;
    // Judged at the last known fix, since the alarm carries none.
    expect(sos.alert).toMatchObject({ severity: 'critical' });
    expect(sos.position?.lat).toBeCloseTo(52.52, 6);
    await expectAtFirstFix();
    expect(await stored()).toHaveLength(1);
  });

  test('a cell-only report (0x28) is stored invalid with the cells heard and leaves the device where it was', async () => {
    const later = new Date(BASE + 60_000);
    await send(gt06CellReport(later, [{ lac: 10365, cellId: 8120, dbm: -60 }, { lac: 10365, cellId: 8121, dbm: -75 }], serial++));
    const rows = await stored();
    expect(rows).toHaveLength(2);
    expect(rows[1]).toMatchObject({
      valid: false,
      attributes: {
        network: {
          cellTowers: [
            { mobileCountryCode: 460, mobileNetworkCode: 0, locationAreaCode: 10365, cellId: 8120, signalStrength: -60 },
            { mobileCountryCode: 460, mobileNetworkCode: 0, locationAreaCode: 10365, cellId: 8121, signalStrength: -75 },
          ],
        },
      },
    });
    await expectAtFirstFix();
  });
});
