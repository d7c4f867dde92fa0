// The scaled deployment on its shared stores' scaled forms: the trackers read history from a
// PostgreSQL streaming replica (DATABASE_READ_URL, made with pg_basebackup) and the gateways count
// rate limits on a three-master Redis Cluster (REDIS_MODE=cluster). History read through the API
// from the replica equals the primary's once caught up; the 61st read in a minute is refused
// whichever gateway serves it, across a failover of the master holding the token's key.
import { describe, expect, test, beforeAll, afterAll } from '@jest/globals';
import { Cluster as RedisClusterClient } from 'ioredis';
import { uniquePrefix } from '../helpers/gateway.js';
import { balancerMissing } from '../helpers/cluster/balancer.js';
import { startCluster, type Cluster } from '../helpers/cluster/cluster.js';
import { RecordingDevice, reportEvery } from '../helpers/cluster/recording-device.js';
import { startReplica, type Replica } from '../helpers/pg-replica.js';
import { startRedisCluster, type RedisCluster } from '../helpers/redis-cluster.js';

// CI installs nginx and its stream module (.ci/run); a machine without them skips this file rather than failing it.
const missing = balancerMissing();
if (missing) process.stderr.write(`replica-redis-cluster.test.ts skipped: ${missing}\n`);
const READY = !missing;
const suite = READY ? describe : describe.skip;

const V1 = '/api/public/v1';
const READS_PER_MINUTE = 60;
const PREFIX = uniquePrefix();

let replica: Replica;
let redis: RedisCluster;
let cluster: Cluster;
let token: string;
let account: string;

/** The replica's server with the test's database (the replica holds every database of the primary). */
function sameDatabase(serverUrl: string, databaseUrl: string): string {
  const url = new URL(serverUrl);
  url.pathname = new URL(databaseUrl).pathname;
  return url.toString();
}

const api = (base: string, path: string) => fetch(`${base}${V1}${path}`, { headers: { authorization: `Bearer ${token}` } });

/** The Redis key holding the token's read count, found on whichever master has it. */
async function readLimitKey(): Promise<string> {
  const seeds = redis.url.split(',').map((u) => ({ host: new URL(u).hostname, port: Number(new URL(u).port) }));
  const client = new RedisClusterClient(seeds);
  try {
    // The client knows the masters once it has read the cluster's slots.
    await new Promise((resolve, reject) => client.once('ready', resolve).once('error', reject));
    for (const node of client.nodes('master')) {
      const [, keys] = await node.scan('0', 'MATCH', `*${PREFIX}*read*`, 'COUNT', 1000);
      if (keys[0]) return keys[0];
    }
    throw new Error(`no read-limit key under ${PREFIX} on any master`);
  } finally {
    client.disconnect();
  }
}

beforeAll(async () => {
  if (!READY) return;
  replica = await startReplica();
  redis = await startRedisCluster({ replicas: 1 });
  cluster = await startCluster({
    trackerEnv: (stack) => ({ DATABASE_READ_URL: sameDatabase(replica.url, stack.database.url!) }),
    gatewayEnv: { REDIS_MODE: 'cluster', REDIS_URL: redis.url, RATE_LIMIT_PREFIX: PREFIX, RATE_LIMIT_READ_PER_MINUTE: String(READS_PER_MINUTE) },
  });
  account = await cluster.stack.account('Replicated');
  token = await cluster.stack.token(account, 'read');
}, 180_000);

afterAll(async () => {
  await cluster?.close();
  await redis?.stop();
  await replica?.stop();
}, 60_000);

suite('a streaming replica and a Redis Cluster behind two gateways', () => {
  test('history read from the replica equals history on the primary once caught up', async () => {
    const ids: string[] = [];
    const units: RecordingDevice[] = [];
    for (let i = 0; i < 20; i++) {
      const imei = `35963330${String(i).padStart(7, '0')}`;
      ids.push(await cluster.stack.device(account, imei));
      units.push(new RecordingDevice(imei, cluster.ports.devices, { lat: 52.4 + i * 0.01, lng: 13.3 }, 1000));
    }
    const from = new Date(Date.now() - 60_000).toISOString();
    await Promise.all(units.map((u) => u.connect()));
    const fleet = reportEvery(units, 1000);
    await new Promise((r) => setTimeout(r, 6000));
    fleet.stop();
    await new Promise((r) => setTimeout(r, 1000));
    for (const u of units) u.close();
    await replica.waitCaughtUp();
    const to = new Date(Date.now() + 60_000).toISOString();

    for (const [i, id] of ids.entries()) {
      const res = await api(cluster.apiUrl, `/devices/${id}/positions?from=${from}&to=${to}`);
      expect(res.status).toBe(200);
      const fromReplica = ((await res.json()) as { data: { timestamp: string; lat: number; lng: number }[] }).data.map((p) => `${p.timestamp} ${p.lat} ${p.lng}`);
      const onPrimary = await cluster.stack.admin.db.query<{ t: Date; lat: number; lng: number }>('SELECT device_time AS t, lat, lng FROM positions WHERE device_id = $1 ORDER BY device_time', [id]);
      expect(fromReplica.sort()).toEqual(onPrimary.map((p) => `${p.t.toISOString()} ${p.lat} ${p.lng}`).sort());
      expect(fromReplica.length).toBeGreaterThanOrEqual(units[i]!.acked.length);
      expect(fromReplica.length).toBeGreaterThan(3);
    }
  }, 60_000);

  test('the 61st read in a minute is refused whichever gateway serves it, across a failover', async () => {
    token = await cluster.stack.token(account, 'read'); // a token of its own: the reads above counted against the first
    const gateways = cluster.gateways.map((g) => `http://127.0.0.1:${g.port}`);
    const statuses: number[] = [];
    for (let i = 0; i < READS_PER_MINUTE; i++) {
      if (i === READS_PER_MINUTE / 2 && redis.failover) await redis.failover(await readLimitKey());
      const res = await api(gateways[i % gateways.length]!, '/devices?limit=1');
      await res.body?.cancel();
      statuses.push(res.status);
    }
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    for (const gateway of gateways) {
      const res = await api(gateway, '/devices?limit=1');
      expect(res.status).toBe(429);
    }
  }, 60_000);
});
