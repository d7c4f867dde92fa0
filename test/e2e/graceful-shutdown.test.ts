// SIGTERM on real processes: nothing new is accepted, what is in flight finishes (an API request,
// device positions: stored, then ACKed), device connections are ended, and the stop keeps to
// SHUTDOWN_TIMEOUT_SECONDS even when a request never finishes. Devices sending as fast as they can
// do not hold the stop: the tracker exits well inside the grace, every ACKed position stored
// (PostgreSQL and the embedded database).
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createServer, request as httpRequest, type Server, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { INTERNAL_HEADERS } from '../../shared/internal.js';
import { runVerb } from '../../tracker/admin/verbs.js';
import { gt06Login, gt06Position } from '../../tracker/simulator/frames/gt06.js';
import type { Queryable } from '../../tracker/storage/db.js';
import { migrate } from '../../tracker/storage/migrate.js';
import { openDb } from '../../tracker/storage/open.js';
import { createTestDatabase } from '../helpers/databases.js';
import { DeviceClient, eventually } from '../helpers/device-client.js';
import { flood, FLOOD_START } from '../helpers/hostile-connection.js';
import { startService, stopAllServices, type Service } from '../helpers/processes.js';
import { createStack, type Stack } from '../helpers/stack.js';

let stack: Stack;
let account: string;

beforeAll(async () => {
  stack = await createStack();
  account = await stack.account('Fleet');
});
afterAll(async () => {
  await stopAllServices();
  await stack.close();
});

/** Whether a connection to the port is refused right now. */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(false)));
    s.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });
}

/** The stop is logged just before the listener closes: allow the process that moment. */
const refusedSoon = (port: number) => eventually(() => refused(port), (r) => r, 2000);

function get(port: number, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('tracker', () => {
  test('positions received before SIGTERM are stored and ACKed, then the connection is ended', async () => {
    const deviceId = await stack.device(account, '359633100000701');
    const tracker = await stack.startTracker();
    const d = await DeviceClient.open(tracker.devicePorts.device!);
    d.send(gt06Login('359633100000701', 1));
    await d.read(10);
    const base = Date.UTC(2026, 10, 21, 10, 0, 0);
    const frames = Array.from({ length: 200 }, (_, i) => gt06Position({ time: new Date(base + i * 1000), lat: 52.5, lng: 13.4, speed: 10, heading: 0 }, {}, i + 2));
    d.send(Buffer.concat(frames));
    await d.read(10); // the first batch is stored: the rest is received and waiting
    process.kill(tracker.pid, 'SIGTERM');

    await d.read(199 * 10, 10_000); // every position ACKed
    expect(await d.waitClosed(5000)).toBe(true); // then ended by the tracker
    expect(await tracker.exited).toEqual({ code: 0, signal: null });
    const stored = await stack.admin.db.query<{ n: number }>('SELECT count(*)::int AS n FROM positions WHERE device_id = $1', [deviceId]);
    expect(stored[0]!.n).toBe(200);
    const device = await stack.admin.db.query<{ status: string }>('SELECT status FROM devices WHERE id = $1', [deviceId]);
    expect(device[0]!.status).toBe('offline'); // recorded before the database closed
  });

  test('an API request in flight is answered after SIGTERM, while new connections are refused', async () => {
    await stack.device(account, '359633100000702');
    const tracker = await stack.startTracker();
    const lock = new pg.Client({ connectionString: stack.database.url });
    lock.on('error', () => undefined); // dropped with the database should the test fail midway
    await lock.connect();
    await lock.query('BEGIN');
    await lock.query('LOCK TABLE devices IN ACCESS EXCLUSIVE MODE');
    const caller = { [INTERNAL_HEADERS.secret]: stack.trackerEnv.GATEWAY_SECRET!, [INTERNAL_HEADERS.accountId]: account, [INTERNAL_HEADERS.tokenId]: 'tok_x', [INTERNAL_HEADERS.scopes]: 'read' };
    const inFlight = get(tracker.port, '/api/public/v1/devices', caller);
    // The request is in flight once the tracker's query waits for the lock.
    for (;;) {
      const waiting = await lock.query("SELECT 1 FROM pg_locks WHERE NOT granted AND relation = 'devices'::regclass");
      if (waiting.rowCount) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    process.kill(tracker.pid, 'SIGTERM');
    expect(await refusedSoon(tracker.port)).toBe(true);
    await lock.query('COMMIT');
    await lock.end();
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect((JSON.parse(res.body) as { data: { imei: string }[] }).data.map((d) => d.imei)).toContain('359633100000702');
    expect(await tracker.exited).toEqual({ code: 0, signal: null });
  });
});

const FLOODING_UNITS = 4;
const imeiOf = (i: number) => `35963310000075${i}`;

/**
 * Units push positions as fast as their sockets take them; SIGTERM once each has been ACKed a
 * while. Returns how long the stop took and, per unit, the positions it was ACKed.
 */
async function stopUnderFlood(tracker: Service & { devicePorts: Record<string, number> }): Promise<{ stopMs: number; acked: number[] }> {
  const floods = await Promise.all(Array.from({ length: FLOODING_UNITS }, (_, i) => flood(tracker.devicePorts.device!, imeiOf(i))));
  await eventually(async () => floods.every((f) => f.acked() >= 200), (ok) => ok, 10_000);
  await new Promise((r) => setTimeout(r, 500));
  const signalled = Date.now();
  process.kill(tracker.pid, 'SIGTERM');
  expect(await tracker.exited).toEqual({ code: 0, signal: null });
  const stopMs = Date.now() - signalled;
  await Promise.all(floods.map((f) => f.client.waitClosed(2000)));
  // The units were still sending when the tracker closed: what it never ACKed they send again elsewhere.
  for (const f of floods) expect(f.sent()).toBeGreaterThan(f.acked());
  return { stopMs, acked: floods.map((f) => f.acked()) };
}

/** Per unit: of its first `acked` positions, how many are stored. */
async function storedOfAcked(db: Queryable, deviceIds: string[], acked: number[]): Promise<number[]> {
  return Promise.all(
    deviceIds.map(async (id, i) => {
      const [row] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM positions WHERE device_id = $1 AND device_time <= $2', [id, new Date(FLOOD_START + acked[i]! * 1000)]);
      return row!.n;
    }),
  );
}

describe('tracker under full load', () => {
  test('PostgreSQL: SIGTERM while units send as fast as they can exits within a fraction of the grace, every ACKed position stored', async () => {
    const deviceIds = await Promise.all(Array.from({ length: FLOODING_UNITS }, (_, i) => stack.device(account, imeiOf(i))));
    const tracker = await stack.startTracker({ SHUTDOWN_TIMEOUT_SECONDS: '20' });
    const { stopMs, acked } = await stopUnderFlood(tracker);
    expect(stopMs).toBeLessThan(5000); // a quarter of the grace
    expect(await storedOfAcked(stack.admin.db, deviceIds, acked)).toEqual(acked);
  });

  test('embedded database: the same', async () => {
    const data = await createTestDatabase('pglite');
    try {
      let db = await openDb({ dataDir: data.dataDir });
      await migrate(db);
      const acc = ((await runVerb({ ...stack.admin, db }, 'accounts create', { name: 'Embedded' })) as { id: string }).id;
      const deviceIds: string[] = [];
      for (let i = 0; i < FLOODING_UNITS; i++) deviceIds.push(((await runVerb({ ...stack.admin, db }, 'devices add', { account: acc, imei: imeiOf(i), name: `Unit ${i}` })) as { id: string }).id);
      await db.close();
      const { DATABASE_URL: _postgres, GATEWAY_SECRET: _s, JWT_PRIVATE_KEY: _k, JWT_PUBLIC_KEY: _p, ...env } = stack.trackerEnv;
      const s = await startService('tracker/main.ts', { ...env, DATA_DIR: data.dataDir, SHUTDOWN_TIMEOUT_SECONDS: '20' });
      const line = await s.waitForLog((l) => l.msg === 'tracker started');
      const { stopMs, acked } = await stopUnderFlood(Object.assign(s, { devicePorts: line.devicePorts as Record<string, number> }));
      expect(stopMs).toBeLessThan(5000);
      db = await openDb({ dataDir: data.dataDir });
      try {
        expect(await storedOfAcked(db, deviceIds, acked)).toEqual(acked);
      } finally {
        await db.close();
      }
    } finally {
      await data.drop();
    }
  }, 90_000); // the embedded database opens three times (set-up, tracker, check)
});

describe('gateway', () => {
  let upstream: Server;
  let held: ServerResponse[] = [];
  let received: () => void = () => undefined;

  beforeAll(async () => {
    // Stands where the tracker would: holds every docs request until the test releases it.
    upstream = createServer((req, res) => {
      if (req.url === '/healthz') return void res.end('{"status":"ok"}');
      held.push(res);
      received();
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  });
  afterAll(async () => {
    for (const res of held) res.destroy();
    await new Promise((r) => upstream.close(r));
  });

  async function gatewayWithHeldRequest(env: Record<string, string> = {}) {
    const gateway = await startService('gateway/main.ts', { ...stack.gatewayEnv((upstream.address() as AddressInfo).port), ...env });
    const arrived = new Promise<void>((r) => (received = r));
    const inFlight = get(gateway.port, '/api-docs');
    await arrived;
    return { gateway, inFlight };
  }

  test('a request in flight is answered after SIGTERM, new connections are refused, exit 0', async () => {
    const { gateway, inFlight } = await gatewayWithHeldRequest();
    process.kill(gateway.pid, 'SIGTERM');
    expect(await refusedSoon(gateway.port)).toBe(true);
    held.shift()!.writeHead(200, { 'content-type': 'text/html' }).end('<title>API</title>');
    expect(await inFlight).toEqual({ status: 200, body: '<title>API</title>' });
    expect(await gateway.exited).toEqual({ code: 0, signal: null });
  });

  test('a request that never finishes is cut at SHUTDOWN_TIMEOUT_SECONDS', async () => {
    const { gateway, inFlight } = await gatewayWithHeldRequest({ SHUTDOWN_TIMEOUT_SECONDS: '1' });
    const outcome = inFlight.then(
      () => 'answered',
      () => 'cut',
    );
    const signalled = Date.now();
    process.kill(gateway.pid, 'SIGTERM');
    expect(await gateway.exited).toEqual({ code: 0, signal: null });
    expect(Date.now() - signalled).toBeLessThan(4000); // the deadline, not the 20 s default
    expect(await outcome).toBe('cut');
    expect(gateway.logs.some((l) => l.includes('requests still in flight at the deadline were cut'))).toBe(true);
    held = [];
  });
});
