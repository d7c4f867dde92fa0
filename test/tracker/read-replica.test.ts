// DATABASE_READ_URL on a real streaming replica of the machine's PostgreSQL: history is read from the
// replica (with its replay paused, new positions do not show), equals the primary's once caught up,
// falls back to the primary past DATABASE_READ_MAX_LAG_SECONDS and while the replica is down, and
// /readyz reports the replica's state without making the tracker unready.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import pg from 'pg';
import { parseConfig } from '../../shared/config.js';
import { INTERNAL_HEADERS } from '../../shared/internal.js';
import { createLogger } from '../../shared/logger.js';
import { runVerb } from '../../tracker/admin/verbs.js';
import { startTracker, type RunningTracker } from '../../tracker/server.js';
import { gt06Login, gt06Position } from '../../tracker/simulator/frames/gt06.js';
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { DeviceClient } from '../helpers/device-client.js';
import { startReplica, type Replica } from '../helpers/pg-replica.js';
import { NO_DEVICE_PORTS } from '../helpers/ports.js';

const IMEI = '359633100020001';
const BASE = Date.UTC(2026, 10, 1, 8, 0, 0);
let replica: Replica;
let database: TestDatabase;
let tracker: RunningTracker;
let replicaDb: pg.Client;
let account: string;
let deviceId: string;
let device: DeviceClient;
let sent = 0;

const dbName = (url: string) => new URL(url).pathname.slice(1);

async function api(path: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`http://127.0.0.1:${tracker.httpPort}${path}`, {
    headers: { [INTERNAL_HEADERS.secret]: tracker.ctx.gatewaySecret, [INTERNAL_HEADERS.accountId]: account, [INTERNAL_HEADERS.tokenId]: 'tok_test', [INTERNAL_HEADERS.scopes]: 'read' },
  });
  return { status: res.status, body: await res.json() };
}

const history = async () => (await api(`/api/public/v1/devices/${deviceId}/positions?from=${new Date(BASE).toISOString()}&to=${new Date(BASE + 86_400_000).toISOString()}`)).body.data as { timestamp: string }[];
const replicaState = async () => (await api('/readyz')).body.checks.replica as { state: string; lagSeconds: number | null };

/** n more positions, each ACKed (so committed on the primary). */
async function report(n: number): Promise<void> {
  for (let i = 0; i < n; i++, sent++) device.send(gt06Position({ time: new Date(BASE + sent * 1000), lat: 52.5, lng: 13.4 + sent * 0.0001, speed: 30, heading: 90 }, {}, sent + 2));
  for (let i = 0; i < n; i++) await device.read(10, 10_000);
}

async function until(what: string, probe: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  replica = await startReplica();
  database = await createTestDatabase('postgres');
  await replica.waitCaughtUp();
  const replicaUrl = replica.url.replace(/\/postgres$/, `/${dbName(database.url!)}`);
  replicaDb = new pg.Client({ connectionString: replicaUrl });
  await replicaDb.connect();
  const config = parseConfig({ DATABASE_URL: database.url, DATABASE_READ_URL: replicaUrl, DATABASE_READ_MAX_LAG_SECONDS: '3', DATA_DIR: database.dataDir, TRACKER_HTTP_PORT: '0', ...NO_DEVICE_PORTS, DEMO: 'false' });
  tracker = await startTracker(config, createLogger('tracker', 'silent'));
  account = ((await runVerb(tracker.ctx, 'accounts create', { name: 'Replica fleet' })) as { id: string }).id;
  deviceId = ((await runVerb(tracker.ctx, 'devices add', { account, imei: IMEI, name: 'Van' })) as { id: string }).id;
  device = await DeviceClient.open(tracker.ingest.ports.device!);
  device.send(gt06Login(IMEI, 1));
  await device.read(10);
}, 120_000);

afterAll(async () => {
  device?.close();
  await replicaDb?.end();
  await tracker?.close();
  await replica?.stop();
  await database?.drop();
});

describe('a read replica (DATABASE_READ_URL)', () => {
  test('history read from the replica equals the primary history once caught up', async () => {
    await report(50);
    await replica.waitCaughtUp();
    await until('the replica counted fresh', async () => (await replicaState()).state === 'ok');
    const fromApi = (await history()).map((p) => new Date(p.timestamp).getTime());
    const onPrimary = (await tracker.ctx.db.query<{ t: Date }>('SELECT device_time AS t FROM positions WHERE device_id = $1 ORDER BY device_time', [deviceId])).map((r) => r.t.getTime());
    const onReplica = (await replicaDb.query<{ t: Date }>('SELECT device_time AS t FROM positions WHERE device_id = $1 ORDER BY device_time', [deviceId])).rows.map((r) => r.t.getTime());
    expect(onPrimary).toHaveLength(50);
    expect(onReplica).toEqual(onPrimary);
    expect(fromApi).toEqual(onPrimary);
  });

  test('with replay paused, history comes from the replica (without the new positions) until it lags past the limit, then from the primary', async () => {
    await replicaDb.query('SELECT pg_wal_replay_pause()');
    try {
      await report(5);
      // Within the allowed lag: the replica answers, and it has not replayed the five.
      expect(await history()).toHaveLength(50);
      await until('the replica counted lagging', async () => (await replicaState()).state === 'lagging');
      expect(await history()).toHaveLength(55);
      expect((await api('/readyz')).status).toBe(200);
    } finally {
      await replicaDb.query('SELECT pg_wal_replay_resume()');
    }
    await replica.waitCaughtUp();
    await until('the replica counted fresh again', async () => (await replicaState()).state === 'ok');
    expect(await history()).toHaveLength(55);
  }, 60_000);

  test('with the replica down, reads fall back to the primary and the tracker stays ready', async () => {
    await replicaDb.end().catch(() => undefined);
    await replica.stop();
    await report(3);
    expect(await history()).toHaveLength(58);
    await until('the replica counted down', async () => (await replicaState()).state === 'down');
    const ready = await api('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.checks).toEqual({ database: 'ok', replica: { state: 'down', lagSeconds: null } });
    expect(await history()).toHaveLength(58);
  }, 60_000);
});
