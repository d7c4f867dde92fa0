// Real tracker processes on one PostgreSQL database: a command queued through one reaches a
// device connected to another within a second; and kill -9 loses no position a device was ACKed.
import { describe, expect, test, beforeAll, afterAll } from '@jest/globals';
import { generateKeyPairSync } from 'node:crypto';
import { parseConfig } from '../../shared/config.js';
import { INTERNAL_HEADERS } from '../../shared/internal.js';
import { runCommand, type AdminContext } from '../../tracker/admin/commands.js';
import { openDb, type Db } from '../../tracker/storage/db.js';
import { migrate } from '../../tracker/storage/migrate.js';
import { gt06Login, gt06Position } from '../../tracker/simulator/frames/gt06.js';
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { DeviceClient } from '../helpers/device-client.js';
import { startService, stopAllServices, type Service } from '../helpers/processes.js';

let t: TestDatabase;
let db: Db;
let account: string;
const SECRET = 'a-gateway-secret-of-at-least-32-characters';
const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const env = () => ({
  DATABASE_URL: t.url!,
  DATA_DIR: t.dataDir,
  DEMO: 'false',
  TRACKER_HTTP_PORT: '0',
  DEVICE_PORT: '0',
  OSMAND_PORT: '0',
  GT06_PORT: '0',
  TELTONIKA_PORT: '0',
  H02_PORT: '0',
  GATEWAY_SECRET: SECRET,
  JWT_PRIVATE_KEY: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  JWT_PUBLIC_KEY: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
});

async function startTracker(): Promise<Service & { devicePort: number }> {
  const s = await startService('tracker/main.ts', env());
  const line = await s.waitForLog((l) => l.msg === 'tracker started');
  return Object.assign(s, { devicePort: (line.devicePorts as Record<string, number>).device! });
}

beforeAll(async () => {
  t = await createTestDatabase('postgres');
  db = await openDb({ databaseUrl: t.url, dataDir: t.dataDir });
  await migrate(db);
  const ctx: AdminContext = { db, privateKey, config: parseConfig({}) };
  account = ((await runCommand(ctx, 'accounts create', { name: 'Fleet' })) as { id: string }).id;
});
afterAll(async () => {
  await stopAllServices();
  await db.close();
  await t.drop();
});

async function addDevice(imei: string): Promise<string> {
  return ((await runCommand({ db, privateKey, config: parseConfig({}) }, 'devices add', { account, imei, name: imei })) as { id: string }).id;
}

describe('several tracker processes', () => {
  test('a locate queued through one tracker reaches the device on the other within a second', async () => {
    const deviceId = await addDevice('359633100000401');
    const [a, b] = await Promise.all([startTracker(), startTracker()]);
    const d = await DeviceClient.open(b.devicePort);
    d.send(gt06Login('359633100000401', 1));
    await d.read(10);
    const queuedAt = Date.now();
    const res = await fetch(`http://127.0.0.1:${a.port}/api/public/v1/devices/${deviceId}/locate`, {
      method: 'POST',
      headers: { [INTERNAL_HEADERS.secret]: SECRET, [INTERNAL_HEADERS.accountId]: account, [INTERNAL_HEADERS.tokenId]: 'tok_x', [INTERNAL_HEADERS.scopes]: 'commands' },
    });
    expect(res.status).toBe(200);
    const head = await d.read(4, 1000);
    expect(head[3]).toBe(0x80);
    expect(Date.now() - queuedAt).toBeLessThan(1000);
    d.close();
    await Promise.all([a.stop(), b.stop()]);
  });

  test('kill -9 loses no position the device was told was stored', async () => {
    const deviceId = await addDevice('359633100000402');
    const tracker = await startTracker();
    const d = await DeviceClient.open(tracker.devicePort);
    d.send(gt06Login('359633100000402', 1));
    await d.read(10);
    let acked = 0;
    const base = Date.UTC(2026, 10, 21, 10, 0, 0);
    // Frames are pipelined: the tracker batches them; each ACK means "durable".
    for (let i = 0; i < 200; i++) d.send(gt06Position({ time: new Date(base + i * 1000), lat: 52.5, lng: 13.4, speed: 10, heading: 0 }, {}, i + 2));
    for (; acked < 120; acked++) await d.read(10, 5000);
    process.kill(tracker.pid, 'SIGKILL');
    await d.waitClosed();
    acked += Math.floor(d.pending().length / 10); // ACKs that arrived before the kill
    const stored = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM positions WHERE device_id = $1', [deviceId]);
    expect(stored[0]!.n).toBeGreaterThanOrEqual(acked);
  });
});
