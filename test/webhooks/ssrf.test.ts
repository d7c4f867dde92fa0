// Webhook targets on the tracker's own network are refused, at configuration and when connecting
// (names are checked on what they resolve to, at connect time), unless WEBHOOK_ALLOW_PRIVATE=true.
// A real receiver listens on loopback to prove that nothing reaches it.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { generateKeyPairSync } from 'node:crypto';
import { parseConfig } from '../../shared/config.js';
import { createLogger } from '../../shared/logger.js';
import type { AdminContext } from '../../tracker/admin/admin-context.js';
import { runVerb } from '../../tracker/admin/verbs.js';
import { insertEndpoint } from '../../tracker/webhooks/endpoints.js';
import { WebhookSender } from '../../tracker/webhooks/sender.js';
import { newSecret } from '../../tracker/webhooks/signing.js';
import { WebhookWorker } from '../../tracker/webhooks/worker.js';
import { openTestDb } from '../helpers/databases.js';
import { enqueue, storedEvent } from '../helpers/webhook-events.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
let receiver: WebhookReceiver;
const strict = new WebhookSender({ allowHttp: true, allowPrivate: false });

beforeAll(async () => {
  receiver = await WebhookReceiver.start();
});
afterAll(async () => {
  strict.close();
  await receiver.close();
});

describe('at connect time', () => {
  test.each([
    ['loopback', () => receiver.url()],
    ['a name resolving to loopback', () => receiver.url('/hook', 'localhost')],
    ['IPv4-mapped IPv6 loopback', () => receiver.url('/hook', '[::ffff:127.0.0.1]')],
    ['IPv6 loopback', () => `http://[::1]:${receiver.port}/hook`],
    ['a private network', () => 'http://10.0.0.1:9/hook'],
    ['the cloud metadata service', () => 'http://169.254.169.254/latest/meta-data/'],
    ['the IPv6 metadata service', () => 'http://[fd00:ec2::254]/latest/meta-data/'],
  ])('%s is refused and nothing is sent', async (_what, url) => {
    const before = receiver.received.length;
    const result = await strict.send(url(), '{}', {});
    expect(result).toMatchObject({ ok: false, statusCode: null, error: expect.stringMatching(/private, loopback, link-local or metadata address/) });
    expect(receiver.received).toHaveLength(before);
  });

  test('plain http is refused unless WEBHOOK_ALLOW_HTTP=true', async () => {
    const httpsOnly = new WebhookSender({ allowHttp: false, allowPrivate: true });
    try {
      expect(await httpsOnly.send(receiver.url(), '{}', {})).toMatchObject({ ok: false, error: expect.stringMatching(/only https URLs are allowed/) });
    } finally {
      httpsOnly.close();
    }
    const open = new WebhookSender({ allowHttp: true, allowPrivate: true });
    try {
      expect(await open.send(receiver.url('/hook', 'localhost'), '{}', {})).toMatchObject({ ok: true, statusCode: 200 });
    } finally {
      open.close();
    }
  });

  test('the refusal of a delivery is written to the endpoint’s log, and it is retried like any failure', async () => {
    const { db, close } = await openTestDb('postgres');
    const worker = new WebhookWorker(db, strict, createLogger('tracker', 'silent'), { retrySchedule: [200, 200], disableAfterMs: 3_600_000, concurrency: 2 });
    try {
      const ctx: AdminContext = { db, privateKey, config: parseConfig({}) };
      const account = ((await runVerb(ctx, 'accounts create', { name: 'Acme' })) as { id: string }).id;
      const device = ((await runVerb(ctx, 'devices add', { account, imei: '359633100000001', name: 'Van' })) as { id: string }).id;
      // Stored as if the name had resolved to a public address when it was added.
      const endpoint = await insertEndpoint(db, { accountId: account, url: receiver.url('/hook', 'localhost'), events: ['*'], format: 'auto', secret: newSecret() });
      await worker.start();
      const before = receiver.received.length;
      await enqueue(db, [storedEvent(account, device)]);
      let log: { deliveries: { failed: number }; attempts: { error: string }[] } | undefined;
      for (let i = 0; i < 100 && !log?.deliveries.failed; i++) {
        await new Promise((r) => setTimeout(r, 100));
        log = (await runVerb(ctx, 'webhooks deliveries', { webhook: endpoint.id })) as typeof log;
      }
      expect(log!.deliveries.failed).toBe(1);
      expect(log!.attempts).toHaveLength(3);
      expect(log!.attempts[0]!.error).toMatch(/^EFORBIDDENADDRESS: localhost resolves to (127\.0\.0\.1|::1)/);
      expect(receiver.received).toHaveLength(before);
    } finally {
      await worker.stop();
      await close();
    }
  });
});

describe('at configuration', () => {
  let ctx: AdminContext;
  let close: () => Promise<void>;
  let account: string;

  beforeAll(async () => {
    const t = await openTestDb('postgres');
    close = t.close;
    ctx = { db: t.db, privateKey, config: parseConfig({ WEBHOOK_ALLOW_HTTP: 'true' }) };
    account = ((await runVerb(ctx, 'accounts create', { name: 'Acme' })) as { id: string }).id;
  });
  afterAll(() => close());

  test.each([
    ['http://127.0.0.1:8081/internal/admin', /points at 127\.0\.0\.1/],
    ['http://10.1.2.3/hook', /points at 10\.1\.2\.3/],
    ['http://169.254.169.254/latest/meta-data/', /points at 169\.254\.169\.254/],
    ['http://[::ffff:169.254.169.254]/', /points at ::ffff:a9fe:a9fe/],
    ['http://[::ffff:0:7f00:1]:8081/hook', /points at ::ffff:0:7f00:1/],
    ['http://[64:ff9b::7f00:1]:8081/hook', /points at 64:ff9b::7f00:1/],
    ['http://[2002:7f00:1::]:8081/hook', /points at 2002:7f00:1::/],
    ['http://localhost:8081/hook', /host localhost resolves to/],
    ['ftp://example.com/hook', /must use https/],
    ['not a url', /must be an absolute URL/],
  ])('%s is refused', async (url, message) => {
    const err = await runVerb(ctx, 'webhooks add', { account, url }).then(() => null, (e: Error) => e);
    expect(err?.message).toMatch(message);
    expect(await ctx.db.query('SELECT 1 FROM webhook_endpoints')).toHaveLength(0);
  });

  test('http is refused without WEBHOOK_ALLOW_HTTP', async () => {
    const err = await runVerb({ ...ctx, config: parseConfig({}) }, 'webhooks add', { account, url: 'http://example.com/hook' }).then(() => null, (e: Error) => e);
    expect(err?.message).toBe('url must use https (plain http only with WEBHOOK_ALLOW_HTTP=true, for development)');
  });
});
