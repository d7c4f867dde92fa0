// Odometer and engine hours computed on the server, over OsmAnd HTTP: the odometer follows a known
// route (flagged jumps and invalid fixes left out), engine hours follow the ignition with long gaps
// capped, a device's own counters win, and the running state survives a tracker restart.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { parseConfig } from '../../shared/config.js';
import { createLogger } from '../../shared/logger.js';
import { runVerb } from '../../tracker/admin/verbs.js';
import { startTracker, type RunningTracker } from '../../tracker/server.js';
import { osmandQuery } from '../../tracker/simulator/frames/osmand.js';
import type { DeviceFix, DeviceState } from '../../tracker/simulator/frames/fix.js';
import { ENGINES, createTestDatabase, type Engine, type TestDatabase } from '../helpers/databases.js';
import { NO_DEVICE_PORTS } from '../helpers/ports.js';

/** Great-circle distance in metres, written here independently of the tracker's. */
function haversine(a: { lat: number; lng: number }, b: { lat: number; lng: number }): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLng = (b.lng - a.lng) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * 6_371_000 * Math.asin(Math.sqrt(h));
}

/** A winding 24-point drive through Paris, one fix every 10 s (40–110 km/h). */
function route(start: Date): { lat: number; lng: number; time: Date }[] {
  return Array.from({ length: 24 }, (_, i) => ({
    lat: 48.85 + 0.0012 * i + 0.0008 * Math.sin(i / 2),
    lng: 2.35 + 0.0015 * i * Math.cos(i / 5),
    time: new Date(start.getTime() + i * 10_000),
  }));
}
const length = (points: { lat: number; lng: number }[]) => points.slice(1).reduce((sum, p, i) => sum + haversine(points[i]!, p), 0);

interface Tracker {
  running: RunningTracker;
  report(imei: string, fix: Partial<DeviceFix> & { time: Date }, state?: DeviceState, extra?: Record<string, string>): Promise<void>;
  /** The attributes stored with the device's latest report. */
  latest(device: string): Promise<Record<string, unknown>>;
}

async function start(engine: Engine, db: TestDatabase): Promise<Tracker> {
  const config = parseConfig({ DATABASE_URL: db.url, DATA_DIR: db.dataDir, TRACKER_HTTP_PORT: '0', ...NO_DEVICE_PORTS, DEMO: 'false', OSMAND_REPORTS_PER_MINUTE_PER_ADDRESS: '1000000' });
  const running = await startTracker(config, createLogger(`tracker-${engine}`, 'silent'));
  const port = running.ingest.ports.osmand!;
  return {
    running,
    async report(imei, fix, state = {}, extra = {}) {
      const query = { ...osmandQuery(imei, { lat: 48.85, lng: 2.35, speed: 50, heading: 0, ...fix }, state), ...extra };
      const res = await fetch(`http://127.0.0.1:${port}/?${new URLSearchParams(query).toString()}`, { method: 'POST' });
      expect(res.status).toBe(200);
    },
    async latest(device) {
      const rows = await running.ctx.db.query<{ attributes: Record<string, unknown> }>('SELECT attributes FROM positions WHERE device_id = $1 ORDER BY device_time DESC LIMIT 1', [device]);
      return rows[0]!.attributes;
    },
  };
}

const minutesAgo = (n: number) => new Date(Math.floor(Date.now() / 1000) * 1000 - n * 60_000);

describe('computed counters on postgres', () => {
  let db: TestDatabase;
  let t: Tracker;
  let account: string;
  const device = async (imei: string) => ((await runVerb(t.running.ctx, 'devices add', { account, imei, name: imei })) as { id: string }).id;
  beforeAll(async () => {
    db = await createTestDatabase('postgres');
    t = await start('postgres', db);
    account = ((await runVerb(t.running.ctx, 'accounts create', { name: 'Counters' })) as { id: string }).id;
  });
  afterAll(async () => {
    await t.running.close();
    await db.drop();
  });

  test("the odometer of a 24-point drive is its geodesic length within 1%; a jump and an invalid fix don't count", async () => {
    const id = await device('359633100013001');
    const points = route(minutesAgo(30));
    for (const [i, p] of points.entries()) {
      await t.report('359633100013001', p);
      // Between two fixes: a GPS jump 500 km away, and an invalid fix as far; neither is driven.
      if (i === 8) await t.report('359633100013001', { time: new Date(p.time.getTime() + 3000), lat: 48.85, lng: 9.2 });
      if (i === 15) await t.report('359633100013001', { time: new Date(p.time.getTime() + 3000), lat: 40, lng: 2.35, valid: false });
    }
    const expected = length(points);
    expect(expected).toBeGreaterThan(3000);
    const attributes = await t.latest(id);
    expect(attributes.odometer as number).toBeGreaterThan(expected * 0.99);
    expect(attributes.odometer as number).toBeLessThan(expected * 1.01);
    expect(attributes.computed).toBe('odometer');
  });

  test('engine hours sum the time the ignition was on, a long silent gap counting 15 minutes at most', async () => {
    const id = await device('359633100013002');
    const t0 = minutesAgo(120).getTime();
    const reports: [number, boolean][] = [
      [0, false],
      [60, true],
      [120, true], // +60 s
      [180, true], // +60 s
      [240, false], // +60 s: on until this report
      [300, false],
      [360, true],
      [3960, true], // an hour of silence with the ignition on: capped at ENGINE_HOURS_MAX_GAP (15m)
    ];
    for (const [s, ignition] of reports) await t.report('359633100013002', { time: new Date(t0 + s * 1000), speed: 0 }, { ignition });
    const attributes = await t.latest(id);
    expect(attributes.engineHours).toBe(180 + 900);
    expect(attributes.computed).toBe('odometer,engineHours');
  });

  test("a device's own odometer and engine hours are kept as reported, and the running sums go on from them", async () => {
    const id = await device('359633100013003');
    const t0 = minutesAgo(20).getTime();
    await t.report('359633100013003', { time: new Date(t0), lat: 48.85, lng: 2.35 }, { ignition: true }, { odometer: '123456789', engineHours: '7200' });
    const reported = await t.latest(id);
    expect(reported).toMatchObject({ odometer: 123456789, engineHours: 7200 });
    expect(reported.computed).toBeUndefined();
    await t.report('359633100013003', { time: new Date(t0 + 60_000), lat: 48.859, lng: 2.35 }, { ignition: true });
    const computed = await t.latest(id);
    expect(computed.odometer as number).toBeCloseTo(123456789 + haversine({ lat: 48.85, lng: 2.35 }, { lat: 48.859, lng: 2.35 }), -1);
    expect(computed.engineHours).toBe(7260);
  });
});

describe.each(ENGINES)('computed counters across a restart on %s', (engine) => {
  let db: TestDatabase;
  let t: Tracker;
  afterAll(async () => {
    await t.running.close();
    await db.drop();
  });

  test('a route driven half before and half after a restart gives the whole odometer and engine hours', async () => {
    db = await createTestDatabase(engine);
    t = await start(engine, db);
    const account = ((await runVerb(t.running.ctx, 'accounts create', { name: 'Restart' })) as { id: string }).id;
    const id = ((await runVerb(t.running.ctx, 'devices add', { account, imei: '359633100014001', name: 'Van' })) as { id: string }).id;
    const points = route(minutesAgo(30));
    for (const p of points.slice(0, 12)) await t.report('359633100014001', p, { ignition: true });
    await t.running.close();
    t = await start(engine, db);
    for (const p of points.slice(12)) await t.report('359633100014001', p, { ignition: true });
    const attributes = await t.latest(id);
    const expected = length(points);
    expect(attributes.odometer as number).toBeGreaterThan(expected * 0.99);
    expect(attributes.odometer as number).toBeLessThan(expected * 1.01);
    expect(attributes.engineHours).toBe(23 * 10);
  });
});
