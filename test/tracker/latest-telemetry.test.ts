// Each device's latest telemetry over OsmAnd HTTP, on PostgreSQL and PGlite: every key keeps the
// device time it was reported at; an invalid fix counts, a flagged one does not; a late record
// leaves newer values alone; a report without coordinates updates the telemetry (stored before its
// answer) without moving the position; the last alarms are kept newest first.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Engine } from '../helpers/databases.js';
import { startTrackerFixture, type TrackerFixture } from '../helpers/tracker-app.js';

const T0 = Date.UTC(2026, 10, 23, 8, 0, 0);
const at = (minutes: number) => new Date(T0 + minutes * 60_000);

describe.each<Engine>(['postgres', 'pglite'])('on %s', (engine) => {
  let f: TrackerFixture;
  let account: string;
  let port: number;

  beforeAll(async () => {
    f = await startTrackerFixture(engine, { OSMAND_REPORTS_PER_MINUTE_PER_ADDRESS: '1000000' });
    account = await f.account('Telemetry');
    port = f.tracker.ingest.ports.osmand!;
  });
  afterAll(() => f.close());

  /** One OsmAnd report: `fix` adds coordinates timed at that minute; the answer must be 200. */
  async function report(imei: string, params: Record<string, string>, fix?: { minute: number; valid?: boolean }): Promise<void> {
    const q = new URLSearchParams({ id: imei, ...params });
    if (fix) {
      q.set('timestamp', String(at(fix.minute).getTime() / 1000));
      q.set('lat', '52.52');
      q.set('lon', '13.405');
      if (fix.valid === false) q.set('valid', 'false');
    }
    const res = await fetch(`http://127.0.0.1:${port}/?${q.toString()}`, { method: 'POST' });
    expect(res.status).toBe(200);
  }

  const device = async (id: string) => (await f.as(account).get(`/api/public/v1/devices/${id}`)).body as { telemetry: Record<string, { value: unknown; time: string }>; lastUpdate: string | null };

  test('each key keeps its own value and time; an invalid fix counts, a late record changes nothing newer', async () => {
    const id = await f.device(account, '359633100007001');
    await report('359633100007001', { batt: '80', power: '12.4' }, { minute: 0 });
    await report('359633100007001', { ignition: 'true' }, { minute: 60, valid: false });
    await report('359633100007001', { batt: '95', ignition: 'false', fuel: '40.5' }, { minute: 30 }); // late: only fuel and the battery are news
    const d = await device(id);
    // The tracker's computed counters are there too (the device sends none; the ignition came on at 09:00).
    expect(d.telemetry).toEqual({
      odometer: { value: 0, time: at(60).toISOString() },
      engineHours: { value: 0, time: at(60).toISOString() },
      batteryLevel: { value: 95, time: at(30).toISOString() },
      power: { value: 12.4, time: at(0).toISOString() },
      ignition: { value: true, time: at(60).toISOString() },
      fuel: { value: 40.5, time: at(30).toISOString() },
    });
    expect(d.lastUpdate).toBe(at(30).toISOString()); // the invalid fix did not move the position
  });

  test('a key a later report does not carry keeps its last value across batches', async () => {
    const id = await f.device(account, '359633100007004');
    await report('359633100007004', { batt: '80', fuel: '10' }, { minute: 0 });
    await report('359633100007004', { batt: '60' }, { minute: 1 });
    await report('359633100007004', { power: '12' }, { minute: 2 });
    await report('359633100007004', { power: '13' }, { minute: 3 });
    expect((await device(id)).telemetry).toMatchObject({
      batteryLevel: { value: 60, time: at(1).toISOString() },
      fuel: { value: 10, time: at(0).toISOString() },
      power: { value: 13, time: at(3).toISOString() },
    });
  });

  test('a position a filter flags updates nothing', async () => {
    const id = await f.device(account, '359633100007002');
    await report('359633100007002', { power: '12.1' }, { minute: 0 });
    const future = new URLSearchParams({ id: '359633100007002', timestamp: String(Math.floor(Date.now() / 1000) + 6 * 3600), lat: '52.52', lon: '13.405', power: '3.3' });
    expect((await fetch(`http://127.0.0.1:${port}/?${future.toString()}`, { method: 'POST' })).status).toBe(200);
    expect((await device(id)).telemetry).toEqual({ power: { value: 12.1, time: at(0).toISOString() }, odometer: { value: 0, time: at(0).toISOString() } });
  });

  test('a report without coordinates is stored before its answer and keeps the position; alarms are listed newest first', async () => {
    const id = await f.device(account, '359633100007003');
    await report('359633100007003', { alarm: 'powerCut' }, { minute: 0 });
    const before = Date.now();
    await report('359633100007003', { batt: '7', alarm: 'sos' });
    const d = await device(id);
    expect(d.lastUpdate).toBe(at(0).toISOString());
    expect(d.telemetry.batteryLevel!.value).toBe(7);
    expect(d.telemetry.alarm!.value).toBe('sos');
    // No device time in a report without a fix: the time it was received stands in.
    expect(Date.parse(d.telemetry.batteryLevel!.time)).toBeGreaterThanOrEqual(before - 1000);
    const [row] = await f.tracker.ctx.db.query<{ alarms: { value: string }[] }>('SELECT alarms FROM devices WHERE id = $1', [id]);
    expect(row!.alarms.map((a) => a.value)).toEqual(['sos', 'powerCut']);
    // A re-sent alarm is listed once.
    await report('359633100007003', { alarm: 'powerCut' }, { minute: 0 });
    const [again] = await f.tracker.ctx.db.query<{ alarms: { value: string }[] }>('SELECT alarms FROM devices WHERE id = $1', [id]);
    expect(again!.alarms.map((a) => a.value)).toEqual(['sos', 'powerCut']);
  });
});
