// "Retry failed deliveries since …": deliveries given up while the receiver was down are queued again
// from the operator CLI and from the dashboard once it is back, each delivered once with its webhook-id;
// a disabled endpoint is enabled by the retry, and failures before the chosen time stay as they are.
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { runVerb } from '../../tracker/admin/verbs.js';
import { disableEndpoint } from '../../tracker/webhooks/endpoints.js';
import { runCli } from '../helpers/cli.js';
import { account, createOwner, signIn, startDashboardStack, type DashboardStack } from '../helpers/dashboard.js';
import { enqueue, storedEvent } from '../helpers/webhook-events.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

jest.setTimeout(60_000);
const PASSWORD = 'correct horse battery staple';
let stack: DashboardStack;
let receiver: WebhookReceiver;
let acme: string;
let van: string;

beforeAll(async () => {
  // One retry a second after the first attempt, then the delivery is given up: an outage of seconds outlasts it.
  stack = await startDashboardStack({ WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE: '1s' });
  receiver = await WebhookReceiver.start();
  acme = await account(stack, 'Acme');
  van = ((await runVerb(stack.tracker.ctx, 'devices add', { account: acme, imei: '359633100000077', name: 'Van' })) as { id: string }).id;
  await createOwner(stack, acme, 'owner@acme.test', PASSWORD);
});
afterAll(async () => {
  await receiver.close();
  await stack.close();
});

type Counts = { pending: number; delivered: number; failed: number };
const counts = async (id: string) => ((await runVerb(stack.tracker.ctx, 'webhooks deliveries', { webhook: id })) as { deliveries: Counts }).deliveries;

async function until(id: string, want: Partial<Counts>): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const c = await counts(id);
    if (Object.entries(want).every(([k, v]) => c[k as keyof Counts] === v)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`deliveries never reached ${JSON.stringify(want)}: ${JSON.stringify(await counts(id))}`);
}

async function endpointGivingUp(path: string, before: number, after: number): Promise<{ id: string; since: Date }> {
  const { id } = (await runVerb(stack.tracker.ctx, 'webhooks add', { account: acme, url: receiver.url(path) })) as { id: string };
  await receiver.down();
  await enqueue(stack.tracker.ctx.db, Array.from({ length: before }, () => storedEvent(acme, van)));
  await until(id, { failed: before });
  const since = new Date();
  await new Promise((r) => setTimeout(r, 20));
  await enqueue(stack.tracker.ctx.db, Array.from({ length: after }, () => storedEvent(acme, van)));
  await until(id, { failed: before + after });
  await receiver.listen();
  return { id, since };
}

describe('retry failed deliveries', () => {
  test('from the CLI: those since the given time are sent once each; older failures stay failed', async () => {
    const { id, since } = await endpointGivingUp('/cli', 1, 2);
    const start = receiver.received.length;
    const env = { DATABASE_URL: stack.db.url, DATA_DIR: stack.db.dataDir };
    const r = await runCli(['webhooks', 'retry', id, '--since', since.toISOString(), '--json'], env);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(r.stdout)).toEqual({ id, since: since.toISOString(), requeued: 2, enabled: false });
    await until(id, { delivered: 2, failed: 1, pending: 0 });
    await new Promise((r) => setTimeout(r, 500));
    const ids = receiver.received.slice(start).map((q) => String(q.headers['webhook-id']));
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);

    const readable = await runCli(['webhooks', 'retry', id, '--since', '2020-01-01'], env);
    expect(readable.stdout).toBe(`Webhook ${id}: 1 failed delivery since 2020-01-01T00:00:00.000Z queued again.\n`);
    await until(id, { delivered: 3, failed: 0 });
    const bad = await runCli(['webhooks', 'retry', id, '--since', 'yesterday'], env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/since must be an ISO 8601 time/);
  });

  test('from the dashboard: the endpoint page offers it, and it enables a disabled webhook', async () => {
    const { id } = await endpointGivingUp('/dashboard', 0, 2);
    await disableEndpoint(stack.tracker.ctx.db, id, 'every delivery failed for 3 days');
    const start = receiver.received.length;
    const owner = await signIn(stack, 'owner@acme.test', PASSWORD);
    const shown = await owner.get(`/dashboard/webhooks/${id}`);
    expect(shown.text).toContain('Retry failed deliveries');
    const retried = await owner.post(`/dashboard/webhooks/${id}/retry`, { since: '24' });
    expect(retried.status).toBe(303);
    const after = await owner.get(retried.location!);
    expect(after.text).toContain('2 failed deliveries queued again, and the webhook enabled again.');
    await until(id, { delivered: 2, failed: 0, pending: 0 });
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.received.slice(start)).toHaveLength(2);
    expect((await owner.get(`/dashboard/webhooks/${id}`)).text).not.toContain('Retry failed deliveries');
  });
});
