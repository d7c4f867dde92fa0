// The scaled deployment as real processes: nginx (http and stream), two gateways, two trackers on
// one PostgreSQL database. 500 GT06 units report every 5 s through nginx's device port; the test
// checks they spread over both trackers, that a locate through either gateway reaches a unit on
// either tracker within a second, and that after kill -9 of one tracker its units are back on the
// other within their reconnect interval with no ACKed position missing, events and webhooks keep
// flowing (every webhook-id delivered; only those in flight at the kill twice) and the API answers
// no 502.
// Long: about two minutes, most of it waiting for reports and reconnections.
import { describe, expect, test, beforeAll, afterAll } from '@jest/globals';
import { parseConfig } from '../../shared/config.js';
import { runVerb } from '../../tracker/admin/verbs.js';
import { balancerMissing } from '../helpers/cluster/balancer.js';
import { startCluster, type Cluster, type TrackerNode } from '../helpers/cluster/cluster.js';
import { RecordingDevice, reportEvery } from '../helpers/cluster/recording-device.js';
import { eventually } from '../helpers/device-client.js';
import { sample, scrape } from '../helpers/metrics.js';

const DEVICES = 500;
const INTERVAL_MS = 5000;
const RECONNECT_MS = 5000;
/** Connecting, logging in and the tracker's first write take a little beyond the interval itself. */
const RECONNECT_SLACK_MS = 3000;
const V1 = '/api/public/v1';
// CI installs nginx and its stream module (.ci/run); a machine without them skips this file rather than failing it.
const missing = balancerMissing();
if (missing) process.stderr.write(`multi-node.test.ts skipped: ${missing}\n`);
const suite = missing ? describe.skip : describe;

let cluster: Cluster;
let token: string;
let account: string;
const deviceIds = new Map<string, string>();
const units: RecordingDevice[] = [];
let fleet: { stop(): void };
let poller: { stop(): Promise<number[]> } | undefined;

const imei = (i: number) => `35963320${String(i).padStart(7, '0')}`;
const place = (i: number) => ({ lat: 52.3 + (i % 50) * 0.01, lng: 13.2 + Math.floor(i / 50) * 0.01 });

async function connected(t: TrackerNode): Promise<number> {
  return sample(await scrape(t.metricsPort), 'fleet_devices_connected', { protocol: 'gt06' }) ?? 0;
}

async function inBatches<T>(items: T[], size: number, run: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(run));
}
const t0 = Date.now();
const phase = (name: string) => process.stderr.write(`${name}: ${Date.now() - t0} ms\n`);

function api(base: string, path: string, method = 'GET', body?: object): Promise<Response> {
  const headers = { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) };
  return fetch(`${base}${V1}${path}`, { method, headers, ...(body ? { body: JSON.stringify(body) } : {}) });
}

/** Polls GET /devices on each base every 100 ms until stopped; resolves with every status (0: no answer). */
function pollStatuses(bases: string[]): { stop(): Promise<number[]> } {
  const statuses: number[] = [];
  let polling = true;
  const loop = (async () => {
    while (polling) {
      const answers = await Promise.all(bases.map((b) => api(b, '/devices?limit=1').then((r) => (void r.body?.cancel(), r.status), () => 0)));
      statuses.push(...answers);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return { stop: async () => ((polling = false), await loop, statuses) };
}

beforeAll(async () => {
  if (missing) return;
  cluster = await startCluster({ proxyProtocol: true });
  phase('cluster');
  const { stack } = cluster;
  account = await stack.account('Scale');
  token = await stack.token(account, 'read,write,commands');
  // The operator's command under the trackers' own settings, which let a webhook reach this host.
  const config = parseConfig({ WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' });
  await runVerb({ ...stack.admin, config }, 'webhooks add', { account, url: cluster.receiver.url() });
  // The fleet registered as an integrator does, through nginx, in bulk (500 a request at most).
  const all = Array.from({ length: DEVICES + 2 }, (_, i) => ({ imei: imei(i), name: `unit ${i}` }));
  for (let i = 0; i < all.length; i += 500) {
    const res = await api(cluster.apiUrl, '/devices/bulk', 'POST', { devices: all.slice(i, i + 500) });
    expect(res.status).toBe(200);
  }
  const rows = await stack.admin.db.query<{ id: string; imei: string }>('SELECT id, imei FROM devices WHERE account_id = $1', [account]);
  for (const r of rows) deviceIds.set(r.imei, r.id);
  expect(deviceIds.size).toBe(DEVICES + 2);
  for (let i = 0; i < DEVICES; i++) units.push(new RecordingDevice(imei(i), cluster.ports.devices, place(i), RECONNECT_MS));
  phase('devices');
  await inBatches(units, 50, (u) => u.connect());
  phase('connected');
  fleet = reportEvery(units, INTERVAL_MS);
}, 300_000);

afterAll(async () => {
  await poller?.stop();
  fleet?.stop();
  for (const u of units) u.close();
  await cluster?.close();
}, 60_000);

suite('two trackers and two gateways behind nginx', () => {
  test('the units spread over both trackers', async () => {
    const counts = await eventually(() => Promise.all(cluster.trackers.map(connected)), (c) => c[0]! + c[1]! === DEVICES, 10_000);
    expect(counts[0]! + counts[1]!).toBe(DEVICES);
    // least_conn over connections that stay open: each tracker holds close to half.
    for (const n of counts) expect(n).toBeGreaterThan(DEVICES * 0.4);
  });

  test('a locate through either gateway reaches a unit on either tracker within a second', async () => {
    // One unit pinned to each tracker through nginx, so every gateway × tracker pair is tried.
    const probes = await Promise.all(
      cluster.ports.pinnedDevices.map(async (port, i) => {
        const p = new RecordingDevice(imei(DEVICES + i), port, place(i), RECONNECT_MS);
        await p.connect();
        return p;
      }),
    );
    // Each gateway's first request warms its paths (token check, limiter script) before timing.
    for (const g of cluster.gateways) expect((await api(`http://127.0.0.1:${g.port}`, '/devices?limit=1')).status).toBe(200);
    const latencies: number[] = [];
    try {
      for (const gateway of cluster.gateways) {
        for (const probe of probes) {
          const before = probe.commands.length;
          const sent = Date.now();
          const res = await api(`http://127.0.0.1:${gateway.port}`, `/devices/${deviceIds.get(probe.imei)}/locate`, 'POST');
          expect(res.status).toBe(200);
          await eventually(async () => probe.commands.length, (n) => n > before, 5000);
          expect(probe.commands.length).toBe(before + 1);
          latencies.push(probe.commands[before]!.at - sent);
        }
      }
      phase(`locate latencies ${latencies.join(", ")} ms`);
      for (const ms of latencies) expect(ms).toBeLessThan(1000);
    } finally {
      for (const p of probes) p.close();
    }
  });

  test('kill -9 of a tracker: its units move to the other, nothing ACKed is lost, webhooks arrive once, no 502', async () => {
    const [victim, survivor] = cluster.trackers as [TrackerNode, TrackerNode];
    // The API through nginx and through each gateway, polled while the tracker dies.
    poller = pollStatuses([cluster.apiUrl, ...cluster.gateways.map((g) => `http://127.0.0.1:${g.port}`)]);

    // A full round of reports ACKed before the kill.
    await eventually(async () => units.every((u) => u.acked.length > 0), Boolean, 3 * INTERVAL_MS);
    // Events in flight as the tracker dies: SOS from the first 25 units.
    for (const u of units.slice(0, 25)) u.sos();
    await new Promise((r) => setTimeout(r, 500));
    const loginsBefore = units.map((u) => u.logins);
    const onVictim = await connected(victim);
    const killedAt = Date.now();
    process.kill(victim.pid, 'SIGKILL');
    await victim.exited;

    // Every unit that lost its connection logs in again on the survivor (the bound on how soon is checked last).
    const movedUnits = () => units.filter((u, i) => u.logins > loginsBefore[i]!);
    await eventually(async () => movedUnits().length >= onVictim && units.every((u) => u.loggedIn), Boolean, 60_000);
    const moved = movedUnits();
    expect(moved.length).toBeGreaterThanOrEqual(onVictim);
    expect(units.filter((u) => !u.loggedIn).map((u) => u.imei)).toEqual([]);
    expect(await connected(survivor)).toBe(DEVICES);
    const slowest = Math.max(...moved.map((u) => u.loggedInAt - killedAt));
    phase(`${moved.length} units moved, the last ${slowest} ms after the kill`);

    // Events keep flowing: SOS from 25 other units that moved, all ACKed; every ACKed SOS is stored.
    const after = moved.filter((u) => units.indexOf(u) >= 25).slice(0, 25);
    for (const u of after) expect(u.sos()).toBe(true);
    await eventually(async () => after.every((u) => u.alarmsAcked === 1), Boolean, 10_000);
    expect(after.filter((u) => u.alarmsAcked !== 1).map((u) => u.imei)).toEqual([]);
    const ackedSos = units.reduce((n, u) => n + u.alarmsAcked, 0);
    const db = cluster.stack.admin.db;
    const sosCount = async () => (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE type = 'sos'`))[0]!.n;
    expect(await sosCount()).toBeGreaterThanOrEqual(ackedSos);

    // One more round of reports on the survivor alone, then the fleet stops and ACKs drain.
    await new Promise((r) => setTimeout(r, INTERVAL_MS));
    fleet.stop();
    await new Promise((r) => setTimeout(r, 1000));
    const statuses = await poller.stop();

    // No position the tracker ACKed is missing from history.
    const rows = await db.query<{ device_id: string; t: number }>(
      `SELECT device_id, (extract(epoch FROM device_time) * 1000)::bigint::float8 AS t FROM positions WHERE device_id = ANY($1)`,
      [units.map((u) => deviceIds.get(u.imei)!)],
    );
    const stored = new Set(rows.map((r) => `${r.device_id}@${r.t}`));
    const acked = units.flatMap((u) => u.acked.map((t) => `${deviceIds.get(u.imei)}@${t}`));
    expect(acked.filter((k) => !stored.has(k))).toEqual([]);
    // Each unit had reports ACKed before the kill and after it.
    expect(units.filter((u) => !u.acked.some((t) => t < killedAt) || !u.acked.some((t) => t > killedAt)).map((u) => u.imei)).toEqual([]);

    // Every webhook delivered under its one webhook-id. A row the dead tracker held returns after its
    // lease; one it had already sent when it died is sent again, same webhook-id (the receiver's
    // deduplication key): at most the deliveries one tracker has in flight (WEBHOOK_CONCURRENCY).
    const deliveries = async () => (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'delivered'`))[0]!.n;
    const all = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_deliveries'))[0]!.n;
    expect(all).toBeGreaterThanOrEqual(ackedSos);
    await eventually(deliveries, (n) => n === all, 75_000);
    phase('webhooks delivered');
    await cluster.receiver.waitFor((r) => r.length >= all, 5000);
    expect(cluster.receiver.ids().size).toBe(all);
    const resent = cluster.receiver.received.length - all;
    phase(`${resent} webhooks sent again after the kill`);
    expect(resent).toBeLessThanOrEqual(64);

    expect(statuses.length).toBeGreaterThan(30);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect(slowest).toBeLessThan(RECONNECT_MS + RECONNECT_SLACK_MS);
  }, 240_000);
});
