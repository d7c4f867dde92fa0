// `npm run bench -- history`: a device with 90 days at one position per 5 seconds (1.55 million rows,
// each with telemetry) on the machine's PostgreSQL; the full-range history through the real gateway
// and tracker in both shapes (lean: the spec's five fields; full: with the telemetry), each against
// psql's COPY of the same columns of the same rows as the physical limit. Also the devices list of a
// 10,000-device account.
import { spawn } from 'node:child_process';
import http from 'node:http';
import { parseConfig } from '../shared/config.js';
import { INTERNAL_HEADERS } from '../shared/internal.js';
import { createTestDatabase } from '../test/helpers/databases.js';
import { startService, stopAllServices } from '../test/helpers/processes.js';
import { runVerb } from '../tracker/admin/verbs.js';
import { HISTORY_SHAPES, type HistoryShape } from '../tracker/api/positions-json.js';
import { migrate } from '../tracker/storage/migrate.js';
import { openDb } from '../tracker/storage/open.js';
import { maintainPartitions } from '../tracker/storage/partitions.js';
import { benchKeys, cpuSeconds, fmt, percentile, rssMb, type BenchKeys } from './lib.js';
import { NO_DEVICE_PORTS } from '../test/helpers/ports.js';

const DAYS = 90;
const EVERY_S = 5;
const ROWS = (DAYS * 86_400) / EVERY_S;
const FLEET = 10_000;

/** The columns each history shape shows, as psql copies them. */
const COLUMNS: Record<HistoryShape, string> = {
  lean: 'lat, lng, speed, heading, device_time',
  full: 'lat, lng, speed, heading, device_time, valid, altitude, satellites, attributes, filtered',
};

/** psql's COPY of the rows, counted by `wc -l`: the physical limit, with a client as light as ours. */
async function copyRate(url: string, shape: HistoryShape, deviceId: string, from: string, to: string): Promise<{ rows: number; seconds: number }> {
  const sql = `\\copy (SELECT ${COLUMNS[shape]} FROM positions WHERE device_id = '${deviceId}' AND device_time >= '${from}' AND device_time <= '${to}' ORDER BY device_time) TO STDOUT`;
  const started = process.hrtime.bigint();
  const child = spawn('bash', ['-o', 'pipefail', '-c', 'psql "$DB" -X -q -c "$SQL" | wc -l'], { env: { ...process.env, DB: url, SQL: sql } });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  await new Promise((resolve, reject) => child.on('close', (code) => (code === 0 ? resolve(null) : reject(new Error(`psql exited ${code}`)))));
  return { rows: Number(out.trim()), seconds: Number(process.hrtime.bigint() - started) / 1e9 };
}

/** Every position has one time; the attributes' own braces make counting braces no longer do. */
const PER_ROW = Buffer.from('"timestamp":"');

/** How many times the needle occurs in a chunk (native search, so the counting client stays light). */
function occurrences(chunk: Buffer, needle: Buffer): number {
  let n = 0;
  for (let i = chunk.indexOf(needle); i !== -1; i = chunk.indexOf(needle, i + needle.length)) n++;
  return n;
}

/**
 * A timed read of a streamed history response by curl, from its start to its exit, as psql's is:
 * on two cores the client shares the machine with what it measures, so both sides use a light C
 * client (a Node.js client's HTTP parsing alone costs half a core-second here).
 */
async function curlRead(url: string, headers: Record<string, string>): Promise<{ bytes: number; seconds: number; firstByteMs: number }> {
  const args = ['-sS', '-o', '/dev/null', '-w', '%{http_code} %{size_download} %{time_starttransfer}', ...Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]), url];
  const started = process.hrtime.bigint();
  const child = spawn('curl', args);
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  await new Promise((resolve, reject) => child.on('close', (code) => (code === 0 ? resolve(null) : reject(new Error(`curl exited ${code}`)))));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const [status, bytes, firstByte] = out.split(' ').map(Number) as [number, number, number];
  if (status !== 200) throw new Error(`history answered ${status}`);
  return { bytes, seconds, firstByteMs: firstByte * 1000 };
}

/** Reads a history response with node:http and counts its positions (one time each). */
function countRows(url: string, headers: Record<string, string>): Promise<{ rows: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        let rows = 0;
        let bytes = 0;
        // The end of the previous chunk, so a needle cut in two by a chunk boundary is counted once.
        let tail = Buffer.alloc(0);
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          const joined = Buffer.concat([tail, chunk]);
          rows += occurrences(joined, PER_ROW);
          tail = joined.subarray(Math.max(joined.length - PER_ROW.length + 1, 0));
        });
        res.on('end', () => resolve({ rows, bytes }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

/** One GET read whole with node:http: the body, and the time from sending to its last byte (ms). */
function timedGet(url: string, headers: Record<string, string>): Promise<{ body: Buffer; ms: number }> {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ body: Buffer.concat(chunks), ms: Number(process.hrtime.bigint() - started) / 1e6 }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

/**
 * Latencies (ms, sorted) of 200 sequential devices-list requests after 20 of warm-up, each to its
 * last byte; every body is then parsed and checked, outside the timing.
 */
async function listLatencies(url: string, headers: Record<string, string>): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < 220; i++) {
    const { body, ms } = await timedGet(url, headers);
    const devices = (JSON.parse(body.toString()) as { data: unknown[] }).data;
    if (devices.length !== FLEET) throw new Error(`devices list returned ${devices.length}`);
    if (i >= 20) latencies.push(ms);
  }
  return latencies.sort((a, b) => a - b);
}

interface HistoryRun {
  shape: HistoryShape;
  url: string;
  keys: BenchKeys;
  tracker: { port: number; pid: number };
  gateway: { port: number; pid: number };
  token: string;
  account: string;
  device: string;
  from: Date;
  to: Date;
}

/**
 * The full-range history in one shape through the gateway, then straight from the tracker (to see the
 * proxy's share), then psql's COPY of the same columns.
 */
async function measureHistory(r: HistoryRun) {
  const historyPath = `/api/public/v1/devices/${r.device}/positions?from=${r.from.toISOString()}&to=${r.to.toISOString()}&fields=${r.shape}`;
  const auth = { authorization: `Bearer ${r.token}` };
  const rssBefore = rssMb(r.tracker.pid);
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMb(r.tracker.pid))), 20);
  const cpuBefore = { tracker: cpuSeconds(r.tracker.pid), gateway: cpuSeconds(r.gateway.pid) };
  const viaGateway = await curlRead(`http://127.0.0.1:${r.gateway.port}${historyPath}`, auth);
  clearInterval(sampler);
  const cpu = { tracker: cpuSeconds(r.tracker.pid) - cpuBefore.tracker, gateway: cpuSeconds(r.gateway.pid) - cpuBefore.gateway };
  const direct = await curlRead(`http://127.0.0.1:${r.tracker.port}${historyPath}`, {
    [INTERNAL_HEADERS.secret]: r.keys.env.GATEWAY_SECRET!, [INTERNAL_HEADERS.accountId]: r.account, [INTERNAL_HEADERS.tokenId]: 'tok_bench', [INTERNAL_HEADERS.scopes]: 'read',
  });
  const { bytes, seconds: apiSeconds, firstByteMs } = viaGateway;
  // Untimed: the positions in the body, counted; the timed reads must have had the same bytes.
  const { rows, bytes: countedBytes } = await countRows(`http://127.0.0.1:${r.gateway.port}${historyPath}`, auth);
  if (countedBytes !== bytes || direct.bytes !== bytes) throw new Error(`${r.shape} history bodies differ: ${bytes}, ${direct.bytes}, ${countedBytes} bytes`);
  const copy = await copyRate(r.url, r.shape, r.device, r.from.toISOString(), r.to.toISOString());
  return { rows, bytes, apiSeconds, direct, firstByteMs, cpu, rssBefore, rssPeak, copy };
}

export async function run(): Promise<void> {
  const t = await createTestDatabase('postgres');
  const db = await openDb({ databaseUrl: t.url, dataDir: t.dataDir });
  try {
    await migrate(db);
    await maintainPartitions(db, 365);
    const keys = benchKeys();
    const ctx = { db, privateKey: keys.privateKey, config: parseConfig({}) };
    const account = ((await runVerb(ctx, 'accounts create', { name: 'Bench' })) as { id: string }).id;
    const device = ((await runVerb(ctx, 'devices add', { account, imei: '359633100009001', name: 'Busy' })) as { id: string }).id;
    const to = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
    const from = new Date(to.getTime() - DAYS * 86_400_000);
    process.stdout.write(`seeding ${fmt(ROWS, 0)} positions…\n`);
    // Telemetry as a GT06 or Teltonika car unit sends it: a few flags and voltages, counters the
    // tracker computes, a raw IO element; one fix in 1,000 invalid and one flagged as a jump.
    await db.query(
      `INSERT INTO positions (device_id, device_time, valid, lat, lng, speed, heading, altitude, satellites, attributes, filtered)
       SELECT $1, $2::timestamptz + i * interval '${EVERY_S} seconds', i % 1000 <> 7, 52 + i * 1e-7, 13 + i * 1e-7, i % 90, i % 360, 30 + i % 50, 4 + i % 9,
         jsonb_build_object('ignition', i % 7 <> 0, 'power', 12 + (i % 20) / 10.0, 'batteryLevel', 40 + i % 60, 'rssi', i % 5, 'odometer', i * 62.5,
           'engineHours', i * 5, 'computed', 'odometer,engineHours', 'io', jsonb_build_object('239', i % 2, '66', 12000 + i % 900)),
         CASE WHEN i % 1000 = 500 THEN 'jump' END
       FROM generate_series(0, $3 - 1) AS i`,
      [device, from.toISOString(), ROWS],
    );
    const fleet = ((await runVerb(ctx, 'accounts create', { name: 'Big fleet' })) as { id: string }).id;
    await db.query(
      `INSERT INTO devices (id, account_id, imei, name, plate, status, last_lat, last_lng, last_speed, last_update)
       SELECT 'dev_' || lpad(i::text, 20, '0'), $1, '8' || lpad(i::text, 14, '0'), 'Unit ' || i, 'P-' || i, 'online', 52, 13, 40, now() FROM generate_series(1, $2) AS i`,
      [fleet, FLEET],
    );
    // Each unit's latest telemetry as a GT06 with an odometer reports it: five keys, each with its time.
    const time = new Date().toISOString();
    const latest = Object.fromEntries(Object.entries({ ignition: true, batteryLevel: 87, power: 12.4, odometer: 123456.7, engineHours: 9000 }).map(([key, value]) => [key, { value, time }]));
    await db.query('UPDATE devices SET telemetry = $2 WHERE account_id = $1', [fleet, JSON.stringify(latest)]);
    await db.query('ANALYZE');

    const settings = { ...keys.env, DATABASE_URL: t.url!, DATA_DIR: t.dataDir, TRACKER_HTTP_PORT: '0', ...NO_DEVICE_PORTS };
    const tracker = await startService('tracker/main.ts', settings);
    const gateway = await startService('gateway/main.ts', { ...settings, GATEWAY_PORT: '0', TRACKER_URL: `http://127.0.0.1:${tracker.port}`, REDIS_URL: 'redis://127.0.0.1:6379', RATE_LIMIT_READ_PER_MINUTE: '1000000000', RATE_LIMIT_PREFIX: `bench:${Date.now()}:` });
    const token = ((await runVerb(ctx, 'tokens create', { account, scopes: 'read' })) as { token: string }).token;
    const fleetToken = ((await runVerb(ctx, 'tokens create', { account: fleet, scopes: 'read' })) as { token: string }).token;

    const shapes = [];
    for (const shape of HISTORY_SHAPES) shapes.push({ shape, ...(await measureHistory({ shape, url: t.url!, keys, tracker, gateway, token, account, device, from, to })) });

    // Devices list of a 10,000-device account: served from its snapshot through the gateway, and,
    // as the peer, rendered for every request by a tracker with snapshots turned off.
    const listed = await listLatencies(`http://127.0.0.1:${gateway.port}/api/public/v1/devices`, { authorization: `Bearer ${fleetToken}` });
    const rendering = await startService('tracker/main.ts', { ...settings, DEVICE_LIST_SNAPSHOT_MS: '0' });
    const rendered = await listLatencies(`http://127.0.0.1:${rendering.port}/api/public/v1/devices`, {
      [INTERNAL_HEADERS.secret]: keys.env.GATEWAY_SECRET!, [INTERNAL_HEADERS.accountId]: fleet, [INTERNAL_HEADERS.tokenId]: 'tok_bench', [INTERNAL_HEADERS.scopes]: 'read',
    });

    const lines = [
      ...shapes.flatMap(({ shape, rows, bytes, apiSeconds, direct, firstByteMs, cpu, rssBefore, rssPeak, copy }) => {
        const apiRate = rows / apiSeconds;
        const copyRows = copy.rows / copy.seconds;
        return [
          `history, ${shape}: ${fmt(rows, 0)} rows (${fmt(bytes / 1e6)} MB) in ${fmt(apiSeconds, 2)} s through the gateway`,
          `  CPU during it: tracker ${fmt(cpu.tracker, 2)} s, gateway ${fmt(cpu.gateway, 2)} s`,
          `  time to first byte ${fmt(firstByteMs)} ms (target < 200)`,
          `  API ${fmt(apiRate, 0)} rows/s (straight from the tracker: ${fmt(rows / direct.seconds, 0)} rows/s); COPY via psql of the same columns ${fmt(copyRows, 0)} rows/s (${fmt(copy.rows, 0)} rows in ${fmt(copy.seconds, 2)} s)`,
          `  ratio API/COPY ${fmt(apiRate / copyRows, 2)}${shape === 'lean' ? ' (target >= 0.7)' : ' (measured)'}`,
          `  tracker memory ${fmt(rssBefore)} MB before, ${fmt(rssPeak)} MB peak: growth ${fmt(rssPeak - rssBefore)} MB (target < 100)`,
        ];
      }),
      `devices list, ${fmt(FLEET, 0)} devices, 200 sequential requests through the gateway: p50 ${fmt(percentile(listed, 50))} ms, p99 ${fmt(percentile(listed, 99))} ms (target p99 < 50)`,
      `  rendered for every request (snapshots off, straight from a tracker): p50 ${fmt(percentile(rendered, 50))} ms, p99 ${fmt(percentile(rendered, 99))} ms`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    for (const { shape, rows, copy } of shapes) if (rows !== ROWS || copy.rows !== ROWS) throw new Error(`${shape}: expected ${ROWS} rows, API gave ${rows}, COPY ${copy.rows}`);
  } finally {
    await stopAllServices();
    await db.close();
    await t.drop();
  }
}
