// Position filters as fleets expect them, over OsmAnd HTTP on real PostgreSQL: invalid fixes, (0,0),
// reports timed ahead of the clock and impossible jumps are stored flagged or dropped per setting,
// and never move the device's current position; a duplicate is dropped, a late record is stored in
// time order without moving the position back. The device is answered 200 either way.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { osmandQuery } from '../../tracker/simulator/frames/osmand.js';
import type { DeviceFix } from '../../tracker/simulator/frames/fix.js';
import { sample } from '../helpers/metrics.js';
import { startTrackerFixture, type TrackerFixture } from '../helpers/tracker-app.js';

const BERLIN = { lat: 52.52, lng: 13.405 };
/** 500 km east of Berlin, on the same parallel (7.4° of longitude at 52.5° N). */
const FAR = { lat: 52.52, lng: 20.805 };

interface Fleet {
  f: TrackerFixture;
  account: string;
  /** Sends one OsmAnd report; expects the 200 a device gets for anything it need not re-send. */
  report(imei: string, fix: Partial<DeviceFix> & { time: Date }): Promise<void>;
  /** The device's current position, as the API shows it. */
  current(device: string): Promise<{ position: { lat: number; lng: number } | null; lastUpdate: string | null }>;
  /** What is stored for the device, oldest first. */
  stored(device: string): Promise<{ lat: number; lng: number; valid: boolean; filtered: string | null; time: string }[]>;
  metric(reason: string, action: string): Promise<number>;
}

async function fleet(settings: Record<string, string> = {}): Promise<Fleet> {
  const f = await startTrackerFixture('postgres', { OSMAND_REPORTS_PER_MINUTE_PER_ADDRESS: '1000000', ...settings });
  const account = await f.account('Filters');
  const port = f.tracker.ingest.ports.osmand!;
  return {
    f,
    account,
    async report(imei, fix) {
      const query = osmandQuery(imei, { ...BERLIN, speed: 0, heading: 0, ...fix });
      const res = await fetch(`http://127.0.0.1:${port}/?${new URLSearchParams(query).toString()}`, { method: 'POST' });
      expect(res.status).toBe(200);
    },
    async current(device) {
      const res = await f.as(account).get(`/api/public/v1/devices/${device}`);
      expect(res.status).toBe(200);
      return res.body as { position: { lat: number; lng: number } | null; lastUpdate: string | null };
    },
    stored: (device) =>
      f.tracker.ctx.db.query(
        `SELECT lat, lng, valid, filtered, to_char(device_time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS time FROM positions WHERE device_id = $1 ORDER BY device_time`,
        [device],
      ),
    metric: async (reason, action) => sample(await f.tracker.ctx.metrics.registry.metrics(), 'fleet_positions_filtered_total', { reason, action }) ?? 0,
  };
}

const iso = (t: Date) => t.toISOString().replace('.000', '');

describe('with the default settings (flag)', () => {
  let t: Fleet;
  beforeAll(async () => (t = await fleet()));
  afterAll(() => t.f.close());

  test('an invalid fix is stored but does not move the current position', async () => {
    const device = await t.f.device(t.account, '359633100011001', 'Van');
    const t0 = new Date(Math.floor(Date.now() / 1000) * 1000 - 600_000);
    await t.report('359633100011001', { time: t0, ...BERLIN });
    await t.report('359633100011001', { time: new Date(t0.getTime() + 10_000), ...FAR, valid: false });
    expect((await t.current(device)).position).toEqual(BERLIN);
    expect((await t.current(device)).lastUpdate).toBe(t0.toISOString());
    expect((await t.stored(device)).map((p) => [p.valid, p.filtered])).toEqual([[true, null], [false, null]]);
  });

  test('a fix 500 km away 10 s later is stored flagged as a jump and the device stays put; the next sane fix moves it', async () => {
    const device = await t.f.device(t.account, '359633100011002', 'Truck');
    const flagged = await t.metric('jump', 'flag');
    const t0 = new Date(Math.floor(Date.now() / 1000) * 1000 - 600_000);
    await t.report('359633100011002', { time: t0, ...BERLIN });
    await t.report('359633100011002', { time: new Date(t0.getTime() + 10_000), ...FAR });
    expect((await t.current(device)).position).toEqual(BERLIN);
    const next = { lat: 52.521, lng: 13.406 }; // about 130 m on, 20 s after the first fix
    await t.report('359633100011002', { time: new Date(t0.getTime() + 20_000), ...next });
    expect((await t.current(device)).position).toEqual(next);
    expect((await t.stored(device)).map((p) => p.filtered)).toEqual([null, 'jump', null]);
    expect(await t.metric('jump', 'flag')).toBe(flagged + 1);
  });

  test('a valid fix at (0,0) is stored flagged and does not move the device', async () => {
    const device = await t.f.device(t.account, '359633100011003', 'Bus');
    const t0 = new Date(Math.floor(Date.now() / 1000) * 1000 - 600_000);
    await t.report('359633100011003', { time: t0, ...BERLIN });
    await t.report('359633100011003', { time: new Date(t0.getTime() + 60_000), lat: 0, lng: 0 });
    expect((await t.current(device)).position).toEqual(BERLIN);
    expect((await t.stored(device)).map((p) => p.filtered)).toEqual([null, 'zero']);
    expect(await t.metric('zero', 'flag')).toBeGreaterThanOrEqual(1);
  });

  test('a report an hour ahead of the clock (within the 1d refusal) is stored flagged as future', async () => {
    const device = await t.f.device(t.account, '359633100011004', 'Cab');
    const t0 = new Date(Math.floor(Date.now() / 1000) * 1000 - 600_000);
    await t.report('359633100011004', { time: t0, ...BERLIN });
    await t.report('359633100011004', { time: new Date(Date.now() + 3_600_000), lat: 52.53, lng: 13.41 });
    expect((await t.current(device)).position).toEqual(BERLIN);
    expect((await t.stored(device)).map((p) => p.filtered)).toEqual([null, 'future']);
  });

  test('a duplicate (same device time) is dropped and counted; the first one stands', async () => {
    const device = await t.f.device(t.account, '359633100011005', 'Tractor');
    const dropped = await t.metric('duplicate', 'drop');
    const t0 = new Date(Math.floor(Date.now() / 1000) * 1000 - 600_000);
    await t.report('359633100011005', { time: t0, ...BERLIN });
    await t.report('359633100011005', { time: t0, lat: 52.53, lng: 13.41 });
    expect((await t.current(device)).position).toEqual(BERLIN);
    expect((await t.stored(device)).map((p) => [p.lat, p.lng])).toEqual([[BERLIN.lat, BERLIN.lng]]);
    expect(await t.metric('duplicate', 'drop')).toBe(dropped + 1);
  });

  test('a late buffered record is stored in time order and does not move the current position back', async () => {
    const device = await t.f.device(t.account, '359633100011006', 'Ferry');
    const t0 = new Date(Math.floor(Date.now() / 1000) * 1000 - 600_000);
    const later = { lat: 52.53, lng: 13.42 };
    await t.report('359633100011006', { time: new Date(t0.getTime() + 60_000), ...later });
    await t.report('359633100011006', { time: t0, ...BERLIN });
    expect(await t.current(device)).toMatchObject({ position: later, lastUpdate: new Date(t0.getTime() + 60_000).toISOString() });
    const history = await t.f.as(t.account).get(`/api/public/v1/devices/${device}/positions?from=${new Date(t0.getTime() - 1000).toISOString()}&to=${new Date().toISOString()}`);
    expect((history.body.data as { lat: number; timestamp: string }[]).map((p) => [p.lat, p.timestamp])).toEqual([
      [BERLIN.lat, t0.toISOString()],
      [later.lat, new Date(t0.getTime() + 60_000).toISOString()],
    ]);
    expect((await t.stored(device)).map((p) => p.time)).toEqual([iso(t0), iso(new Date(t0.getTime() + 60_000))]);
  });
});

describe('with every filter set to drop', () => {
  let t: Fleet;
  beforeAll(async () => (t = await fleet({ FILTER_ZERO: 'drop', FILTER_FUTURE: 'drop', FILTER_JUMP: 'drop' })));
  afterAll(() => t.f.close());

  test('a jump, a (0,0) fix and a report ahead of the clock are answered 200, counted, and not stored', async () => {
    const device = await t.f.device(t.account, '359633100012001', 'Truck');
    const before = { jump: await t.metric('jump', 'drop'), zero: await t.metric('zero', 'drop'), future: await t.metric('future', 'drop') };
    const t0 = new Date(Math.floor(Date.now() / 1000) * 1000 - 600_000);
    await t.report('359633100012001', { time: t0, ...BERLIN });
    await t.report('359633100012001', { time: new Date(t0.getTime() + 10_000), ...FAR });
    await t.report('359633100012001', { time: new Date(t0.getTime() + 20_000), lat: 0, lng: 0 });
    await t.report('359633100012001', { time: new Date(Date.now() + 3_600_000), lat: 52.53, lng: 13.41 });
    expect((await t.current(device)).position).toEqual(BERLIN);
    expect((await t.stored(device)).map((p) => p.time)).toEqual([iso(t0)]);
    expect(await t.metric('jump', 'drop')).toBe(before.jump + 1);
    expect(await t.metric('zero', 'drop')).toBe(before.zero + 1);
    expect(await t.metric('future', 'drop')).toBe(before.future + 1);
  });

  test("a dropped jump from one device does not cost another device's position in the same moment", async () => {
    const a = await t.f.device(t.account, '359633100012002', 'A');
    const b = await t.f.device(t.account, '359633100012003', 'B');
    const t0 = new Date(Math.floor(Date.now() / 1000) * 1000 - 600_000);
    await Promise.all([t.report('359633100012002', { time: t0, ...BERLIN }), t.report('359633100012003', { time: t0, lat: 48.85, lng: 2.35 })]);
    await Promise.all([
      t.report('359633100012002', { time: new Date(t0.getTime() + 10_000), ...FAR }),
      t.report('359633100012003', { time: new Date(t0.getTime() + 10_000), lat: 48.851, lng: 2.351 }),
    ]);
    expect((await t.current(a)).position).toEqual(BERLIN);
    expect((await t.current(b)).position).toEqual({ lat: 48.851, lng: 2.351 });
  });
});
