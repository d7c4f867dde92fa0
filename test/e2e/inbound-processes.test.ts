// Inbound webhooks through real gateway and tracker processes on PostgreSQL: calls accepted,
// refused by the tracker and refused by the gateway, with the secret spelled in several ways, and
// then every line both processes wrote is searched for the secret.
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { generateKeyPairSync } from 'node:crypto';
import { parseConfig } from '../../shared/config.js';
import { callTracker } from '../../tracker/admin/remote.js';
import { runVerb } from '../../tracker/admin/verbs.js';
import type { Db } from '../../tracker/storage/db.js';
import { migrate } from '../../tracker/storage/migrate.js';
import { openDb } from '../../tracker/storage/open.js';
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { startService, stopAllServices, type Service } from '../helpers/processes.js';
import { NO_DEVICE_PORTS } from '../helpers/ports.js';

const SECRET = 'a-gateway-secret-of-at-least-32-characters';
const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const keys = {
  GATEWAY_SECRET: SECRET,
  JWT_PRIVATE_KEY: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  JWT_PUBLIC_KEY: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
};
let t: TestDatabase;
let db: Db;
let tracker: Service;
let gateway: Service;

beforeAll(async () => {
  t = await createTestDatabase('postgres');
  db = await openDb({ databaseUrl: t.url, dataDir: t.dataDir });
  await migrate(db);
  const ports = { TRACKER_HTTP_PORT: '0', ...NO_DEVICE_PORTS };
  tracker = await startService('tracker/main.ts', { ...keys, ...ports, DATABASE_URL: t.url!, DATA_DIR: t.dataDir, DEMO: 'false', LOG_LEVEL: 'info' });
  gateway = await startService('gateway/main.ts', {
    ...keys,
    GATEWAY_PORT: '0',
    TRACKER_URL: `http://127.0.0.1:${tracker.port}`,
    DATA_DIR: t.dataDir,
    LOG_LEVEL: 'info',
    RATE_LIMIT_PREFIX: `test:${process.pid}:inbound:`,
  });
}, 60_000);

afterAll(async () => {
  await stopAllServices();
  await db.close();
  await t.drop();
});

test('the secret never appears in a log line of the gateway or the tracker', async () => {
  const ctx = { db, privateKey, config: parseConfig({}) };
  const account = ((await runVerb(ctx, 'accounts create', { name: 'Fleet' })) as { id: string }).id;
  const device = ((await runVerb(ctx, 'devices add', { account, imei: '359633100000901', name: 'Van' })) as { id: string }).id;
  // Created through the running tracker's admin endpoint, as the CLI does, so that path is searched too.
  const trackerConfig = parseConfig({ ...keys, TRACKER_URL: `http://127.0.0.1:${tracker.port}`, DATA_DIR: t.dataDir });
  const created = await callTracker(trackerConfig, 'inbound add', { account, action: 'create_expense' });
  if (!created.reached) throw new Error('tracker not reached');
  const { id, secret } = created.result as { id: string; secret: string };

  const base = `http://127.0.0.1:${gateway.port}/api/inbound/${id}`;
  const post = (query: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${base}?${query}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const expense = JSON.stringify({ deviceId: device, amount: 61.2, category: 'fuel', liters: 40 });

  expect((await post(`secret=${secret}`, expense)).status).toBe(201);
  expect((await post(`sec%72et=${secret}`, expense)).status).toBe(201); // the tracker decodes the name
  expect((await post(`secret=${secret}`, expense, { 'idempotency-key': 'k1' })).status).toBe(201);
  expect((await post(`secret=${secret}`, expense, { 'idempotency-key': 'k1' })).status).toBe(201);
  expect((await post(`secret=${secret}`, '{"amount":"x"}')).status).toBe(400);
  expect((await post(`secret=${secret}`, expense, { 'content-type': 'text/plain' })).status).toBe(415);
  expect((await post(`secret=${secret}`, JSON.stringify({ amount: 1, pad: 'x'.repeat(300 * 1024) }))).status).toBe(413);
  expect((await post(`secret=${secret}&secret=${secret}`, expense)).status).toBe(401);
  expect((await post(`secret=${secret.slice(0, -1)}`, expense)).status).toBe(401);
  const unknown = await fetch(`http://127.0.0.1:${gateway.port}/api/inbound/inb_unknownunknownunknow?secret=${secret}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: expense });
  expect(unknown.status).toBe(401);

  // What the webhook's owner sees: every call the tracker answered, with the caller's address.
  let calls: { status: number; clientAddress: string }[] = [];
  for (let i = 0; i < 50 && calls.length < 8; i++, await new Promise((r) => setTimeout(r, 50))) {
    calls = await db.query('SELECT status, client_address AS "clientAddress" FROM inbound_calls WHERE webhook_id = $1', [id]);
  }
  expect(calls.map((c) => c.status).sort()).toEqual([201, 201, 201, 201, 400, 401, 401, 415].sort());
  expect(calls.every((c) => /127\.0\.0\.1$/.test(c.clientAddress))).toBe(true);
  expect(await db.query('SELECT id FROM expenses')).toHaveLength(3);

  await gateway.stop(); // a normal stop flushes the gateway's buffered lines
  await tracker.stop();
  const gatewayLines = gateway.logs.filter((l) => l.includes(`/api/inbound/${id}`));
  const trackerLines = tracker.logs.filter((l) => l.includes(`/api/inbound/${id}`));
  expect(gatewayLines).toHaveLength(9); // the searched lines exist: one per call to this webhook
  expect(trackerLines).toHaveLength(8); // the 413 never reached the tracker
  expect(gatewayLines.join('\n')).toContain('sec%72et=[redacted]');
  for (const line of [...gateway.logs, ...tracker.logs]) {
    expect(line).not.toContain(secret);
    expect(line).not.toContain(secret.slice(0, -1));
  }
}, 60_000);
