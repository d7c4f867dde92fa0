// Webhook delivery against the machine's PostgreSQL and real local HTTP receivers: signatures,
// filters, receivers that fail, redirect, ask for a pause or are gone, and several workers sharing
// one outbox.
import { afterAll, afterEach, beforeAll, describe, expect, test } from '@jest/globals';
import { generateKeyPairSync } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { parseConfig } from '../../shared/config.js';
import { createLogger } from '../../shared/logger.js';
import type { AdminContext } from '../../tracker/admin/admin-context.js';
import { runVerb } from '../../tracker/admin/verbs.js';
import type { Db } from '../../tracker/storage/db.js';
import { migrate } from '../../tracker/storage/migrate.js';
import { openDb } from '../../tracker/storage/open.js';
import { WebhookSender } from '../../tracker/webhooks/sender.js';
import { WebhookWorker, type WorkerOptions } from '../../tracker/webhooks/worker.js';
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { enqueue, storedEvent } from '../helpers/webhook-events.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const config = parseConfig({ WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' });
const FAST = Array.from({ length: 30 }, () => 300);

let t: TestDatabase;
let db: Db;
let ctx: AdminContext;
let accountId: string;
let deviceId: string;
const running: { worker: WebhookWorker; sender: WebhookSender; db?: Db }[] = [];
const receivers: WebhookReceiver[] = [];

async function startWorker(options: Partial<WorkerOptions> = {}, on: Db = db): Promise<WebhookWorker> {
  const sender = new WebhookSender({ allowHttp: true, allowPrivate: true });
  const worker = new WebhookWorker(on, sender, createLogger('tracker', 'silent'), { retrySchedule: FAST, disableAfterMs: 3_600_000, concurrency: 8, ...options });
  await worker.start();
  running.push({ worker, sender, ...(on === db ? {} : { db: on }) });
  return worker;
}

async function receiver(): Promise<WebhookReceiver> {
  const r = await WebhookReceiver.start();
  receivers.push(r);
  return r;
}

async function addWebhook(url: string, extra: Record<string, string> = {}, account = accountId): Promise<{ id: string; secret: string }> {
  return (await runVerb(ctx, 'webhooks add', { account, url, ...extra })) as { id: string; secret: string };
}

const endpointRow = async (id: string) => (await db.query<{ status: string; disabled_reason: string | null }>('SELECT status, disabled_reason FROM webhook_endpoints WHERE id = $1', [id]))[0]!;
const deliveryRows = (endpointId: string) => db.query<{ status: string; attempts: number }>('SELECT status, attempts FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY id', [endpointId]);

async function until(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  t = await createTestDatabase('postgres');
  db = await openDb({ databaseUrl: t.url, dataDir: t.dataDir });
  await migrate(db);
  ctx = { db, privateKey, config };
  accountId = ((await runVerb(ctx, 'accounts create', { name: 'Acme' })) as { id: string }).id;
  deviceId = ((await runVerb(ctx, 'devices add', { account: accountId, imei: '359633100000001', name: 'Van 1', plate: 'B-AC 123' })) as { id: string }).id;
});

afterEach(async () => {
  for (const r of running.splice(0)) {
    await r.worker.stop();
    r.sender.close();
    await r.db?.close();
  }
  for (const r of receivers.splice(0)) await r.close();
  await db.query('DELETE FROM webhook_endpoints');
});

afterAll(async () => {
  await db.close();
  await t.drop();
});

describe('delivery', () => {
  test('each event arrives once, signed so the standardwebhooks library verifies it, in the documented shape', async () => {
    const r = await receiver();
    const { secret } = await addWebhook(r.url());
    await startWorker();
    const events = [
      storedEvent(accountId, deviceId, { type: 'sos', alert: { id: 1, severity: 'critical', message: 'SOS pressed' }, attributes: { alarm: 'sos', ignition: true, power: 12.6 } }),
      storedEvent(accountId, deviceId, { type: 'geofence_enter', data: { geofenceId: 'gf_1', name: 'Depot' } }),
      storedEvent(accountId, deviceId, { type: 'device_online', position: null }),
    ];
    await enqueue(db, events);
    await r.waitFor((got) => got.length === 3);

    const verifier = new Webhook(secret);
    const bodies = r.received.map((req) => {
      expect(req.headers['content-type']).toBe('application/json');
      expect(req.headers['x-service-signature']).toBe(req.headers['webhook-signature']);
      return verifier.verify(req.body, req.headers as Record<string, string>) as Record<string, unknown>;
    });
    const byId = new Map(bodies.map((b) => [b.id, b]));
    expect(byId.get(events[0]!.id)).toEqual({
      id: events[0]!.id,
      type: 'sos',
      createdAt: events[0]!.createdAt,
      device: { id: deviceId, name: 'Van 1', plate: 'B-AC 123', imei: '359633100000001' },
      position: events[0]!.position,
      attributes: { alarm: 'sos', ignition: true, power: 12.6 },
      alert: { id: 1, severity: 'critical', message: 'SOS pressed' },
      data: {},
    });
    expect(byId.get(events[1]!.id)).toMatchObject({ type: 'geofence_enter', data: { geofenceId: 'gf_1', name: 'Depot' } });
    expect(byId.get(events[1]!.id)).not.toHaveProperty('alert');
    expect(byId.get(events[2]!.id)).toMatchObject({ type: 'device_online', position: null });
    expect(r.ids().size).toBe(3);
  });

  test('only endpoints of the event’s account that want its type get it; a disabled one gets nothing new', async () => {
    const mine = await receiver();
    const theirs = await receiver();
    const off = await receiver();
    await addWebhook(mine.url(), { events: 'sos,speeding' });
    const other = ((await runVerb(ctx, 'accounts create', { name: 'Other' })) as { id: string }).id;
    await addWebhook(theirs.url(), {}, other);
    const disabled = await addWebhook(off.url());
    await db.query("UPDATE webhook_endpoints SET status = 'disabled' WHERE id = $1", [disabled.id]);
    await startWorker();
    await enqueue(db, [storedEvent(accountId, deviceId, { type: 'sos' }), storedEvent(accountId, deviceId, { type: 'fuel_alert' }), storedEvent(accountId, deviceId, { type: 'speeding' })]);
    await mine.waitFor((got) => got.length === 2);
    await new Promise((r) => setTimeout(r, 1500));
    expect(mine.received.map((x) => JSON.parse(x.body).type).sort()).toEqual(['sos', 'speeding']);
    expect(theirs.received).toHaveLength(0);
    expect(off.received).toHaveLength(0);
    expect(await deliveryRows(disabled.id)).toHaveLength(0);
  });

  test('a receiver down for a while: once it is back, every delivery arrives, none lost', async () => {
    const r = await receiver();
    const { id } = await addWebhook(r.url());
    await r.down();
    await startWorker();
    const events = Array.from({ length: 40 }, (_, i) => storedEvent(accountId, deviceId, { type: 'speeding', data: { n: i } }));
    await enqueue(db, events);
    await until(async () => (await deliveryRows(id)).every((d) => d.attempts >= 2));
    expect(r.received).toHaveLength(0);
    await r.listen();
    await r.waitFor((got) => new Set(got.map((x) => JSON.parse(x.body).id)).size === 40);
    expect(new Set(r.received.map((x) => JSON.parse(x.body).id))).toEqual(new Set(events.map((e) => e.id)));
    await until(async () => (await deliveryRows(id)).every((d) => d.status === 'delivered'));
    const log = (await runVerb(ctx, 'webhooks deliveries', { webhook: id, limit: '1000' })) as { deliveries: Record<string, number>; attempts: { statusCode: number | null; error: string | null }[] };
    expect(log.deliveries).toEqual({ pending: 0, delivered: 40, failed: 0 });
    expect(log.attempts.filter((a) => a.statusCode === 200)).toHaveLength(40);
    expect(log.attempts.filter((a) => a.statusCode === null && /ECONNREFUSED/.test(a.error ?? '')).length).toBeGreaterThanOrEqual(80);
  });

  test('when a receiver comes back, deliveries waiting for a later retry are sent at once', async () => {
    const r = await receiver();
    const { id } = await addWebhook(r.url());
    await r.down();
    await startWorker({ retrySchedule: [200, 600_000] });
    await enqueue(db, Array.from({ length: 5 }, () => storedEvent(accountId, deviceId)));
    await until(async () => (await deliveryRows(id)).every((d) => d.attempts === 2));
    await r.listen();
    // The next retries are ten minutes away; a new event succeeds and brings them forward.
    await enqueue(db, [storedEvent(accountId, deviceId)]);
    await r.waitFor((got) => got.length === 6, 10_000);
  });

  test('Retry-After is honoured: the endpoint gets nothing before the time it asked for', async () => {
    const r = await receiver();
    r.respond = (_req, i) => (i === 0 ? { status: 503, headers: { 'retry-after': '2' } } : { status: 200 });
    const { id } = await addWebhook(r.url());
    await startWorker({ retrySchedule: [100, 100, 100] });
    await enqueue(db, [storedEvent(accountId, deviceId)]);
    // Once the 503 is in the log, a new event waits for the pause too.
    await until(async () => ((await runVerb(ctx, 'webhooks deliveries', { webhook: id })) as { attempts: { statusCode: number }[] }).attempts[0]?.statusCode === 503);
    await enqueue(db, [storedEvent(accountId, deviceId, { type: 'speeding' })]);
    await r.waitFor((got) => got.length === 3);
    const [first, ...later] = r.received;
    for (const req of later) expect(req.at - first!.at).toBeGreaterThanOrEqual(1950);
    expect(r.received[1]!.headers['webhook-id']).not.toBe(r.received[2]!.headers['webhook-id']);
    expect(new Set(later.map((x) => x.headers['webhook-id']))).toContain(first!.headers['webhook-id']);
  });

  test('a redirect is a failure and is not followed; the retry carries the same webhook-id', async () => {
    const target = await receiver();
    const r = await receiver();
    r.respond = () => ({ status: 302, headers: { location: target.url() } });
    const { id } = await addWebhook(r.url());
    await startWorker();
    await enqueue(db, [storedEvent(accountId, deviceId)]);
    await r.waitFor((got) => got.length >= 2);
    expect(target.received).toHaveLength(0);
    expect(r.received[1]!.headers['webhook-id']).toBe(r.received[0]!.headers['webhook-id']);
    expect(r.received[1]!.headers['webhook-timestamp']).toBeDefined();
    const log = (await runVerb(ctx, 'webhooks deliveries', { webhook: id })) as { attempts: { statusCode: number; error: string; nextAttemptAt: string | null }[] };
    expect(log.attempts[0]).toMatchObject({ statusCode: 302, error: expect.stringMatching(/redirects are not followed/), nextAttemptAt: expect.any(Date) });
  });

  test('an endpoint failing for WEBHOOK_DISABLE_AFTER is disabled, its owner alerted, and it resumes when enabled', async () => {
    const r = await receiver();
    r.respond = () => ({ status: 500, body: 'database on fire' });
    const { id } = await addWebhook(r.url());
    await startWorker({ disableAfterMs: 1500 });
    await enqueue(db, [storedEvent(accountId, deviceId)]);
    await until(async () => (await endpointRow(id)).status === 'disabled');
    expect((await endpointRow(id)).disabled_reason).toBe('every delivery failed for 1500 ms');
    const alerts = await db.query<{ device_id: string | null; type: string; severity: string; message: string }>('SELECT device_id, type, severity, message FROM alerts WHERE account_id = $1', [accountId]);
    expect(alerts).toEqual([{ device_id: null, type: 'webhook_disabled', severity: 'warning', message: expect.stringContaining(`Webhook ${id} (127.0.0.1:${r.port}) was disabled`) }]);
    expect(alerts[0]!.message).not.toContain('/hook');
    const log = (await runVerb(ctx, 'webhooks deliveries', { webhook: id })) as { attempts: { error: string }[] };
    expect(log.attempts[0]!.error).toBe('HTTP 500: database on fire');

    const seen = r.received.length;
    await new Promise((res) => setTimeout(res, 1500));
    expect(r.received).toHaveLength(seen);
    r.respond = () => ({ status: 204 });
    await runVerb(ctx, 'webhooks enable', { webhook: id });
    await until(async () => (await deliveryRows(id))[0]!.status === 'delivered');
    await db.query('DELETE FROM alerts');
  });

  test('two workers on separate connections share one outbox: everything delivered, nothing twice', async () => {
    const r = await receiver();
    const { id } = await addWebhook(r.url());
    const second = await openDb({ databaseUrl: t.url, dataDir: t.dataDir });
    await startWorker({ concurrency: 4 });
    await startWorker({ concurrency: 4 }, second);
    const events = Array.from({ length: 200 }, () => storedEvent(accountId, deviceId));
    for (let i = 0; i < events.length; i += 20) await enqueue(db, events.slice(i, i + 20));
    await r.waitFor((got) => got.length >= 200);
    // Both recorded every outcome (workers recording at once must not block each other).
    await until(async () => (await deliveryRows(id)).every((d) => d.status === 'delivered'), 5000);
    await new Promise((res) => setTimeout(res, 1500));
    expect(r.received).toHaveLength(200);
    expect(r.ids().size).toBe(200);
  });

  test('a chat format is still signed: Slack blocks verified with the same secret', async () => {
    const r = await receiver();
    const { secret } = await addWebhook(r.url(), { format: 'slack' });
    await startWorker();
    await enqueue(db, [storedEvent(accountId, deviceId, { type: 'fuel_alert_critical', alert: { id: 2, severity: 'critical', message: 'Fuel dropped 12 L in 40 s' } })]);
    await r.waitFor((got) => got.length === 1);
    const body = new Webhook(secret).verify(r.received[0]!.body, r.received[0]!.headers as Record<string, string>) as { text: string; blocks: unknown[] };
    expect(body.text).toBe('Fuel drop: Van 1: Fuel dropped 12 L in 40 s');
    expect(body.blocks).toHaveLength(3);
  });
});
