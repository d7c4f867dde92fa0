// Webhook delivery inside the running tracker: pending deliveries survive a restart of the tracker
// process (real processes), the embedded database delivers too, and a receiver that answers 410 Gone
// disables its endpoint, which the owner sees among the account's alerts.
import { afterAll, describe, expect, test } from '@jest/globals';
import { generateKeyPairSync } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { parseConfig } from '../../shared/config.js';
import type { AdminContext } from '../../tracker/admin/admin-context.js';
import { runVerb } from '../../tracker/admin/verbs.js';
import { migrate } from '../../tracker/storage/migrate.js';
import { openDb } from '../../tracker/storage/open.js';
import { createTestDatabase } from '../helpers/databases.js';
import { assertMatchesDocument } from '../helpers/openapi.js';
import { startService, stopAllServices } from '../helpers/processes.js';
import { startTrackerFixture } from '../helpers/tracker-app.js';
import { enqueue, storedEvent } from '../helpers/webhook-events.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { NO_DEVICE_PORTS } from '../helpers/ports.js';

const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const allowLocal = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' };

afterAll(() => stopAllServices());

describe('tracker restart mid-backlog', () => {
  test('deliveries pending when the tracker stops are all sent by the next tracker process', async () => {
    const t = await createTestDatabase('postgres');
    const db = await openDb({ databaseUrl: t.url, dataDir: t.dataDir });
    const receiver = await WebhookReceiver.start();
    try {
      await migrate(db);
      const ctx: AdminContext = { db, privateKey, config: parseConfig(allowLocal) };
      const account = ((await runVerb(ctx, 'accounts create', { name: 'Acme' })) as { id: string }).id;
      const device = ((await runVerb(ctx, 'devices add', { account, imei: '359633100000001', name: 'Van' })) as { id: string }).id;
      const { id } = (await runVerb(ctx, 'webhooks add', { account, url: receiver.url() })) as { id: string };
      const counts = async () => ((await runVerb(ctx, 'webhooks deliveries', { webhook: id })) as { deliveries: { pending: number; delivered: number; failed: number } }).deliveries;
      const env = { ...allowLocal, WEBHOOK_RETRY_SCHEDULE: Array(20).fill('300ms').join(','), DATABASE_URL: t.url!, DATA_DIR: t.dataDir, TRACKER_HTTP_PORT: '0', ...NO_DEVICE_PORTS, DEMO: 'false', LOG_LEVEL: 'info' };

      // The receiver is down: the first tracker keeps failing, then stops with everything pending.
      await receiver.down();
      const first = await startService('tracker/main.ts', env);
      const events = Array.from({ length: 100 }, () => storedEvent(account, device));
      await enqueue(db, events.slice(0, 60));
      await first.waitForLog((l) => l.msg === 'webhook attempt failed');
      await first.stop();
      await enqueue(db, events.slice(60, 80)); // stored while no tracker runs
      expect(await counts()).toEqual({ pending: 80, delivered: 0, failed: 0 });

      // The receiver is back but slow; a second tracker is stopped halfway through the backlog.
      await receiver.listen();
      const slow = receiver.respond;
      receiver.respond = (req, i) => {
        const until = Date.now() + 20;
        while (Date.now() < until);
        return slow(req, i);
      };
      const second = await startService('tracker/main.ts', env);
      await receiver.waitFor((got) => got.length >= 20);
      await second.stop();
      const midway = await counts();
      expect(midway.delivered).toBeGreaterThanOrEqual(20);
      expect(midway.pending).toBeGreaterThan(0);
      await enqueue(db, events.slice(80));

      const third = await startService('tracker/main.ts', env);
      await receiver.waitFor((got) => new Set(got.map((r) => JSON.parse(r.body).id)).size === 100, 30_000);
      expect(new Set(receiver.received.map((r) => JSON.parse(r.body).id))).toEqual(new Set(events.map((e) => e.id)));
      // Each stop let the requests in flight finish and recorded them: nothing was sent twice.
      expect(receiver.received).toHaveLength(100);
      await third.stop();
      expect(await counts()).toEqual({ pending: 0, delivered: 100, failed: 0 });
    } finally {
      await receiver.close();
      await db.close();
      await t.drop();
    }
  }, 90_000);
});

describe('on the embedded database', () => {
  test('a tracker on PGlite delivers signed webhooks too', async () => {
    const fx = await startTrackerFixture('pglite', allowLocal);
    const receiver = await WebhookReceiver.start();
    try {
      const ctx = fx.tracker.ctx;
      const account = await fx.account('Acme');
      const device = await fx.device(account, '359633100000001');
      const { secret } = (await runVerb(ctx, 'webhooks add', { account, url: receiver.url() })) as { secret: string };
      const events = [storedEvent(account, device), storedEvent(account, device, { type: 'speeding' })];
      await enqueue(ctx.db, events);
      await receiver.waitFor((got) => got.length === 2);
      const bodies = receiver.received.map((r) => new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as { id: number });
      expect(bodies.map((b) => b.id).sort()).toEqual(events.map((e) => e.id).sort());
    } finally {
      await receiver.close();
      await fx.close();
    }
  });
});

describe('410 Gone', () => {
  test('disables the endpoint and the owner finds an account-level alert in GET /alerts', async () => {
    const fx = await startTrackerFixture('postgres', allowLocal);
    const receiver = await WebhookReceiver.start();
    receiver.respond = () => ({ status: 410 });
    try {
      const ctx = fx.tracker.ctx;
      const account = await fx.account('Acme');
      const device = await fx.device(account, '359633100000001');
      const { id } = (await runVerb(ctx, 'webhooks add', { account, url: receiver.url() })) as { id: string };
      await enqueue(ctx.db, [storedEvent(account, device)]);
      await receiver.waitFor((got) => got.length === 1);
      let listed: { webhooks: { id: string; status: string; disabledReason: string; pending: number }[] } | undefined;
      for (let i = 0; i < 50 && listed?.webhooks[0]?.status !== 'disabled'; i++) {
        await new Promise((r) => setTimeout(r, 100));
        listed = (await runVerb(ctx, 'webhooks list', { account })) as typeof listed;
      }
      expect(listed!.webhooks[0]).toMatchObject({ id, status: 'disabled', disabledReason: 'the receiver answered 410 Gone', pending: 1 });

      const res = await fx.as(account, 'read').get('/api/public/v1/alerts');
      expect(res.status).toBe(200);
      assertMatchesDocument('GET', '/api/public/v1/alerts', 200, res.body);
      expect(res.body.data).toEqual([
        { id: expect.any(Number), type: 'webhook_disabled', severity: 'warning', deviceId: null, message: expect.stringContaining(`Webhook ${id}`), status: 'open', createdAt: expect.any(String), acknowledgedAt: null },
      ]);
      const other = await fx.account('Other');
      expect((await fx.as(other, 'read').get('/api/public/v1/alerts')).body.data).toEqual([]);
      const ack = await fx.as(account, 'write').post(`/api/public/v1/alerts/${res.body.data[0].id}/acknowledge`);
      expect(ack.status).toBe(200);
      assertMatchesDocument('POST', '/api/public/v1/alerts/{id}/acknowledge', 200, ack.body);
      expect(ack.body).toMatchObject({ deviceId: null, status: 'acknowledged' });

      // No new deliveries while disabled; the waiting one goes out when it is enabled again.
      await enqueue(ctx.db, [storedEvent(account, device)]);
      receiver.respond = () => ({ status: 200 });
      await runVerb(ctx, 'webhooks enable', { webhook: id });
      await receiver.waitFor((got) => got.length === 2);
      await new Promise((r) => setTimeout(r, 1200));
      expect(receiver.received).toHaveLength(2);
      expect(receiver.received[1]!.headers['webhook-id']).toBe(receiver.received[0]!.headers['webhook-id']);
      // Both attempts are in the tracker's metrics.
      const metrics = await ctx.metrics.registry.metrics();
      expect(metrics).toMatch(/^fleet_webhook_failures_total\{reason="status",service="tracker"\} 1$/m);
      expect(metrics).toMatch(/^fleet_webhook_deliveries_total\{service="tracker"\} 1$/m);
    } finally {
      await receiver.close();
      await fx.close();
    }
  });
});
