// H02 telemetry end to end, a unit on a real TCP socket to a tracker on PostgreSQL: a V1 report's
// telemetry is stored with the position; an NBR cell report without a fix that carries SOS raises
// the alarm (GET /events), is stored unlocated with its cells, is confirmed, and leaves the unit's
// position where its last fix put it (GET /devices/{id}).
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { h02CellReport, h02Position } from '../../tracker/simulator/frames/h02.js';
import { DeviceClient, eventually } from '../helpers/device-client.js';
import { startTrackerFixture, type TrackerFixture } from '../helpers/tracker-app.js';

const V1 = '/api/public/v1';
const IMEI = '4210058099';
const FIX_TIME = new Date(Math.floor(Date.now() / 1000) * 1000 - 120_000);
const CELL_TIME = new Date(FIX_TIME.getTime() + 60_000);
/** "*HQ,<id>,V4,<type>,<yyyyMMddHHmmss>#": the confirmations of V1 and NBR reports. */
const confirmationLength = (type: string) => `*HQ,${IMEI},V4,${type},`.length + 15;

let f: TrackerFixture;
let account: string;
let deviceId: string;

beforeAll(async () => {
  f = await startTrackerFixture('postgres');
  account = await f.account('Acme');
  deviceId = await f.device(account, IMEI, 'H02 unit');
});
afterAll(async () => {
  await f.close();
});

interface Row {
  valid: boolean;
  lat: number;
  lng: number;
  time: string;
  attributes: Record<string, unknown>;
}
const stored = () =>
  f.tracker.ctx.db.query<Row>(
    `SELECT valid, lat, lng, to_char(device_time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS time, attributes FROM positions WHERE device_id = $1 ORDER BY device_time`,
    [deviceId],
  );

describe('H02 over TCP', () => {
  test('a fix with its telemetry, then an SOS in a cell report without a fix', async () => {
    const d = await DeviceClient.open(f.tracker.ingest.ports.device!);
    d.send(h02Position(IMEI, { time: FIX_TIME, lat: 52.5, lng: 13.3, speed: 37.04, heading: 90 }, { ignition: true }));
    // The confirmation comes after the commit, with the server's time.
    const ack = (await d.read(confirmationLength('V1'))).toString('latin1');
    expect(ack).toMatch(new RegExp(`^\\*HQ,${IMEI},V4,V1,\\d{14}#$`));
    expect(Math.abs(Date.parse(ack.slice(-15, -1).replace(/(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)/, '$1-$2-$3T$4:$5:$6Z')) - Date.now())).toBeLessThan(60_000);

    d.send(h02CellReport(IMEI, CELL_TIME, { mcc: 262, mnc: 2 }, [{ lac: 431, cid: 17003, signal: -67 }, { lac: 431, cid: 11101, signal: -80 }], { alarm: 'sos' }));
    expect((await d.read(confirmationLength('NBR'))).toString('latin1')).toMatch(new RegExp(`^\\*HQ,${IMEI},V4,NBR,\\d{14}#$`));
    d.close();

    const events = async () => ((await f.as(account).get(`${V1}/events`)).body.data as { type: string; deviceId: string }[]).filter((e) => e.deviceId === deviceId);
    const sos = await eventually(async () => (await events()).filter((e) => e.type === 'sos'), (l) => l.length === 1);
    // The alert shows where the unit last had a fix, and says this report had none.
    expect(sos).toEqual([
      expect.objectContaining({ data: { fix: false }, alert: expect.objectContaining({ severity: 'critical' }), position: expect.objectContaining({ lat: expect.closeTo(52.5, 5), lng: expect.closeTo(13.3, 5) }) }),
    ]);

    const device = await f.as(account).get(`${V1}/devices/${deviceId}`);
    expect(device.status).toBe(200);
    expect(device.body.position).toEqual({ lat: expect.closeTo(52.5, 5), lng: expect.closeTo(13.3, 5) });
    expect(device.body.lastUpdate).toBe(FIX_TIME.toISOString());

    const [fix, cells] = await stored();
    expect(fix).toMatchObject({ valid: true, time: FIX_TIME.toISOString().replace('.000', ''), attributes: expect.objectContaining({ ignition: true, io: { status: 0xffffffff } }) });
    expect(fix!.attributes.network).toBeUndefined();
    expect(cells).toMatchObject({
      valid: false,
      lat: 0,
      lng: 0,
      time: CELL_TIME.toISOString().replace('.000', ''),
      attributes: {
        alarm: 'sos',
        ignition: false,
        network: {
          cellTowers: [
            { mobileCountryCode: 262, mobileNetworkCode: 2, locationAreaCode: 431, cellId: 17003, signalStrength: -67 },
            { mobileCountryCode: 262, mobileNetworkCode: 2, locationAreaCode: 431, cellId: 11101, signalStrength: -80 },
          ],
        },
      },
    });
  });
});
