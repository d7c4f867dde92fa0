// The webhook commands of the operator CLI, run as a user would (child processes), against the
// machine's PostgreSQL and, through a running tracker, the embedded database.
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import { parseConfig } from '../../shared/config.js';
import { createLogger } from '../../shared/logger.js';
import { startTracker } from '../../tracker/server.js';
import { openDb } from '../../tracker/storage/open.js';
import { runCli } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { NO_DEVICE_PORTS } from '../helpers/ports.js';

const allowLocal = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' };
// Several CLI processes per test: generous on a busy machine.
jest.setTimeout(90_000);

describe('webhooks CLI on PostgreSQL', () => {
  let t: TestDatabase;
  let env: Record<string, string | undefined>;
  let account: string;
  let receiver: WebhookReceiver;
  const json = async (args: string[]) => {
    const r = await runCli([...args, '--json'], env);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    return JSON.parse(r.stdout);
  };

  beforeAll(async () => {
    t = await createTestDatabase('postgres');
    receiver = await WebhookReceiver.start();
    env = { DATABASE_URL: t.url, DATA_DIR: t.dataDir, ...allowLocal };
    account = (await json(['accounts', 'create', '--name', 'Acme'])).id;
    await json(['devices', 'add', '--account', account, '--imei', '359633100000001', '--name', 'Van 1', '--plate', 'B-AC 123']);
  });
  afterAll(async () => {
    await receiver.close();
    await t.drop();
  });

  test('add shows the secret once; list shows the endpoints without it', async () => {
    const added = await json(['webhooks', 'add', '--account', account, '--url', receiver.url()]);
    expect(added).toMatchObject({ id: expect.stringMatching(/^whk_/), url: receiver.url(), events: ['*'], format: 'auto', deliversAs: 'standard', status: 'enabled', secret: expect.stringMatching(/^whsec_/) });
    const slack = await json(['webhooks', 'add', '--account', account, '--url', 'https://hooks.slack.com/services/T0/B0/x', '--events', 'sos,speeding']);
    expect(slack).toMatchObject({ events: ['sos', 'speeding'], deliversAs: 'slack' });
    const teams = await json(['webhooks', 'add', '--account', account, '--url', 'https://example.com/x', '--format', 'teams']);
    expect(teams).toMatchObject({ format: 'teams', deliversAs: 'teams' });

    const listed = await json(['webhooks', 'list', '--account', account]);
    expect(listed.webhooks.map((w: { id: string }) => w.id)).toEqual([added.id, slack.id, teams.id]);
    const readable = await runCli(['webhooks', 'list', '--account', account], env);
    expect(readable.stdout).toContain(`${added.id}  enabled  standard  all events  ${receiver.url()}  (0 pending)`);
    expect(readable.stdout).toContain('sos,speeding');
    for (const out of [JSON.stringify(listed), readable.stdout]) for (const s of [added.secret, slack.secret, teams.secret]) expect(out).not.toContain(s);

    const text = await runCli(['webhooks', 'add', '--account', account, '--url', receiver.url('/other')], env);
    expect(text.stdout).toMatch(/^Webhook whk_\w+ added: all events to http:\/\/127\.0\.0\.1:\d+\/other as standard\.\nThe signing secret is shown this once; store it now:\nwhsec_\S+\n$/);
  });

  test('test sends a signed test message now and logs it; deliveries shows the log', async () => {
    const { id, secret } = await json(['webhooks', 'add', '--account', account, '--url', receiver.url('/test')]);
    const before = receiver.received.length;
    const sent = await json(['webhooks', 'test', id]);
    expect(sent).toMatchObject({ id, ok: true, statusCode: 200, deliversAs: 'standard', messageId: expect.stringMatching(/^msg_test_/) });
    expect(receiver.received).toHaveLength(before + 1);
    const req = receiver.received.at(-1)!;
    expect(new Webhook(secret).verify(req.body, req.headers as Record<string, string>)).toMatchObject({ id: 0, type: 'test', device: { name: 'Van 1', plate: 'B-AC 123', imei: '359633100000001' } });

    await receiver.down();
    const failed = await runCli(['webhooks', 'test', id], env);
    expect(failed.code).toBe(0);
    expect(failed.stdout).toMatch(/^Test message msg_test_\w+ failed \(standard\): connect ECONNREFUSED/);
    await receiver.listen();

    const log = await json(['webhooks', 'deliveries', id]);
    expect(log.deliveries).toEqual({ pending: 0, delivered: 0, failed: 0 });
    expect(log.attempts).toHaveLength(2);
    expect(log.attempts[0]).toMatchObject({ eventType: 'test', statusCode: null, error: expect.stringMatching(/ECONNREFUSED/), nextAttemptAt: null });
    expect(log.attempts[1]).toMatchObject({ eventType: 'test', statusCode: 200, error: null, messageId: sent.messageId });
    const readable = await runCli(['webhooks', 'deliveries', id, '--limit', '1'], env);
    expect(readable.stdout.trim().split('\n')).toHaveLength(3);
    expect(readable.stdout).toMatch(/0 pending, 0 delivered, 0 failed\.\n\S+Z {2}msg_test_\w+ {2}test {2}\d+ ms {2}connect ECONNREFUSED/);
  });

  test('remove takes the endpoint away; enable on a removed one is not found', async () => {
    const { id } = await json(['webhooks', 'add', '--account', account, '--url', receiver.url('/gone')]);
    expect(await json(['webhooks', 'remove', id])).toEqual({ id, removed: true });
    expect((await json(['webhooks', 'list', '--account', account])).webhooks.map((w: { id: string }) => w.id)).not.toContain(id);
    for (const verb of ['remove', 'enable', 'test', 'deliveries']) {
      const r = await runCli(['webhooks', verb, id], env);
      expect(r).toMatchObject({ code: 1, stdout: '', stderr: `error: no webhook ${id}\n` });
    }
  });

  const endpoints = async () => {
    const db = await openDb({ databaseUrl: t.url, dataDir: t.dataDir });
    try {
      return (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_endpoints'))[0]!.n;
    } finally {
      await db.close();
    }
  };

  test.each([
    ['an unknown event', ['--url', 'https://example.com/x', '--events', 'sos,teleport'], /unknown event "teleport": use all, or some of sos, speeding/],
    ['an unknown format', ['--url', 'https://example.com/x', '--format', 'telegram'], /format must be one of auto, standard, slack, discord, teams, googlechat/],
    ['a relative URL', ['--url', 'example.com/x'], /url must be an absolute URL/],
    ['a URL over 2048 characters', ['--url', `https://example.com/${'x'.repeat(2100)}`], /url must be at most 2048 characters/],
    ['an ftp URL', ['--url', 'ftp://example.com/x'], /url must use https/],
    ['no URL', [], /url is required/],
  ])('add refuses %s with one line and writes nothing', async (_what, args, message) => {
    const before = await endpoints();
    const r = await runCli(['webhooks', 'add', '--account', account, ...args], env);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(message);
    expect(await endpoints()).toBe(before);
  });

  test('plain http and private targets are refused without the development settings', async () => {
    const strict = { DATABASE_URL: t.url, DATA_DIR: t.dataDir };
    const http = await runCli(['webhooks', 'add', '--account', account, '--url', 'http://example.com/x'], strict);
    expect(http).toMatchObject({ code: 1, stderr: 'error: url must use https (plain http only with WEBHOOK_ALLOW_HTTP=true, for development)\n' });
    const metadata = await runCli(['webhooks', 'add', '--account', account, '--url', 'https://169.254.169.254/latest'], strict);
    expect(metadata.stderr).toMatch(/points at 169\.254\.169\.254, a private, loopback, link-local or metadata address/);
  });

  test('usage errors', async () => {
    expect(await runCli(['webhooks', 'test'], env)).toMatchObject({ code: 1, stderr: 'error: webhook id is required (webhooks test WEBHOOK_ID)\n' });
    expect((await runCli(['webhooks', 'deliveries', 'whk_x', '--limit', 'lots'], env)).stderr).toMatch(/limit \(--limit\) must be a whole number from 1 to 1000/);
    const extra = await runCli(['webhooks', 'remove', 'a', 'b'], env);
    expect(extra.code).toBe(2);
    expect(extra.stderr).toMatch(/unexpected argument "b"/);
  });
});

describe('webhooks CLI while the tracker owns the embedded database', () => {
  test('add and test go through the running tracker, which sends the test message', async () => {
    const t = await createTestDatabase('pglite');
    const receiver = await WebhookReceiver.start();
    const config = parseConfig({ DATA_DIR: t.dataDir, TRACKER_HTTP_PORT: '0', ...NO_DEVICE_PORTS, DEMO: 'false', ...allowLocal });
    const tracker = await startTracker(config, createLogger('tracker', 'silent'));
    try {
      // The CLI itself has no development settings: the tracker's apply.
      const env = { DATA_DIR: t.dataDir, TRACKER_URL: `http://127.0.0.1:${tracker.httpPort}` };
      const account = JSON.parse((await runCli(['accounts', 'create', '--name', 'Live', '--json'], env)).stdout).id;
      const added = await runCli(['webhooks', 'add', '--account', account, '--url', receiver.url(), '--format', 'discord', '--json'], env);
      expect(added.code).toBe(0);
      const { id, secret } = JSON.parse(added.stdout);
      const sent = await runCli(['webhooks', 'test', id], env);
      expect(sent.stdout).toMatch(/^Test message msg_test_\w+ delivered \(discord\): HTTP 200 in \d+ ms\.\n$/);
      const body = new Webhook(secret).verify(receiver.received[0]!.body, receiver.received[0]!.headers as Record<string, string>) as { embeds: { title: string }[] };
      expect(body.embeds[0]!.title).toBe('Test message');
    } finally {
      await tracker.close();
      await receiver.close();
      await t.drop();
    }
  });
});
