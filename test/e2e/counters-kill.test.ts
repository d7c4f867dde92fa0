// kill -9 neither loses nor double counts a stretch of the computed counters: a real tracker process,
// on PostgreSQL and on the embedded database, is killed while a GT06 unit pipelines its reports; the
// unit then re-sends everything to the next tracker, and every stored report carries exactly the
// engine time and distance of the reports before it; the unit's latest telemetry is its last report's.
import { afterAll, describe, expect, test } from '@jest/globals';
import { gt06Login, gt06Position } from '../../tracker/simulator/frames/gt06.js';
import { openDb } from '../../tracker/storage/open.js';
import { runCli } from '../helpers/cli.js';
import { ENGINES, createTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { DeviceClient } from '../helpers/device-client.js';
import { NO_DEVICE_PORTS, freePort } from '../helpers/ports.js';
import { startService, stopAllServices } from '../helpers/processes.js';

const databases: TestDatabase[] = [];
afterAll(async () => {
  await stopAllServices();
  for (const db of databases) await db.drop();
});

function haversine(a: { lat: number; lng: number }, b: { lat: number; lng: number }): number {
  const rad = Math.PI / 180;
  const h = Math.sin(((b.lat - a.lat) * rad) / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(((b.lng - a.lng) * rad) / 2) ** 2;
  return 2 * 6_371_000 * Math.asin(Math.sqrt(h));
}

const IMEI = '359633100015001';
const FRAMES = 200;

describe.each(ENGINES)('computed counters and kill -9 on %s', (engine) => {
  test('every stored report carries the engine time and distance of those before it, after a kill and a full re-send', async () => {
    const db = await createTestDatabase(engine);
    databases.push(db);
    const httpPort = await freePort();
    const devicePort = await freePort();
    const env: Record<string, string> = {
      ...NO_DEVICE_PORTS,
      DATA_DIR: db.dataDir,
      TRACKER_HTTP_PORT: String(httpPort),
      DEVICE_PORT: String(devicePort),
      OSMAND_PORT: String(await freePort()),
        DEMO: 'false',
      LOG_LEVEL: 'info',
      ...(db.url ? { DATABASE_URL: db.url } : {}),
    };
    const start = () => startService('tracker/main.ts', env, { timeoutMs: 60_000 });
    const cli = { DATA_DIR: db.dataDir, TRACKER_URL: `http://127.0.0.1:${httpPort}`, ...(db.url ? { DATABASE_URL: db.url } : {}) };

    let tracker = await start();
    const account = (JSON.parse((await runCli(['accounts', 'create', '--name', 'Fleet', '--json'], cli)).stdout) as { id: string }).id;
    const device = (JSON.parse((await runCli(['devices', 'add', '--account', account, '--imei', IMEI, '--name', 'Van', '--json'], cli)).stdout) as { id: string }).id;

    // A drive north at about 80 km/h with the ignition on, one report a second.
    const base = Math.floor(Date.now() / 1000) * 1000 - 3_600_000;
    const frames = Array.from({ length: FRAMES }, (_, i) =>
      gt06Position({ time: new Date(base + i * 1000), lat: 52.5 + i * 0.0002, lng: 13.4, speed: 80, heading: 0 }, { ignition: true }, i + 2),
    );
    const connect = async () => {
      const d = await DeviceClient.open(devicePort);
      d.send(gt06Login(IMEI, 1));
      await d.read(10);
      return d;
    };
    let d = await connect();
    for (const frame of frames) d.send(frame);
    for (let acked = 0; acked < 120; acked++) await d.read(10, 5000);
    process.kill(tracker.pid, 'SIGKILL');
    await d.waitClosed();
    await tracker.exited;

    // The unit re-sends everything it buffered, the ACKed reports too, to the next tracker.
    tracker = await start();
    d = await connect();
    for (const frame of frames) d.send(frame);
    for (let acked = 0; acked < FRAMES; acked++) await d.read(10, 5000);
    d.close();
    await tracker.stop();

    const check = await openDb({ databaseUrl: db.url, dataDir: db.dataDir });
    try {
      const rows = await check.query<{ lat: number; lng: number; attributes: { odometer: number; engineHours: number } }>(
        'SELECT lat, lng, attributes FROM positions WHERE device_id = $1 ORDER BY device_time',
        [device],
      );
      expect(rows).toHaveLength(FRAMES);
      let distance = 0;
      rows.forEach((r, i) => {
        if (i > 0) distance += haversine(rows[i - 1]!, r);
        expect(r.attributes.engineHours).toBe(i);
        expect(Math.abs(r.attributes.odometer - distance)).toBeLessThan(1 + distance * 0.001);
      });
      const [state] = await check.query<{ odometer: number; engine_hours: number; telemetry: string }>(
        'SELECT counter_odometer AS odometer, counter_engine_hours AS engine_hours, telemetry FROM devices WHERE id = $1',
        [device],
      );
      expect({ odometer: state!.odometer, engine_hours: state!.engine_hours }).toEqual({ odometer: rows.at(-1)!.attributes.odometer, engine_hours: FRAMES - 1 });
      const time = new Date(base + (FRAMES - 1) * 1000).toISOString();
      expect(JSON.parse(state!.telemetry)).toEqual({ ignition: { value: true, time }, odometer: { value: rows.at(-1)!.attributes.odometer, time }, engineHours: { value: FRAMES - 1, time } });
    } finally {
      await check.close();
    }
  }, 180_000);
});
