// The operator CLI's inbound commands as an operator runs them: add shows the URL and the secret
// once, list never shows the secret, calls reads the webhook's log, remove ends the URL.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import request from 'supertest';
import { INTERNAL_HEADERS } from '../../shared/internal.js';
import { runCli } from '../helpers/cli.js';
import { freePort } from '../helpers/ports.js';
import { startTrackerFixture, type TrackerFixture } from '../helpers/tracker-app.js';

let f: TrackerFixture;
let env: Record<string, string | undefined>;
let account: string;

beforeAll(async () => {
  f = await startTrackerFixture('postgres');
  account = await f.account('Acme');
  env = { DATABASE_URL: f.db.url, DATA_DIR: f.db.dataDir, TRACKER_URL: `http://127.0.0.1:${await freePort()}`, PUBLIC_BASE_URL: 'https://fleet.example.com' };
});
afterAll(() => f.close());

const post = (id: string, secret: string, body: string) =>
  request(`http://127.0.0.1:${f.tracker.httpPort}`)
    .post(`/api/inbound/${id}?secret=${secret}`)
    .set(INTERNAL_HEADERS.secret, f.tracker.ctx.gatewaySecret)
    .set('content-type', 'application/json')
    .send(body);

describe('admin inbound', () => {
  test('add, list, calls and remove', async () => {
    const added = await runCli(['inbound', 'add', '--account', account, '--action', 'log_only', '--name', 'ERP audit', '--json'], env);
    expect(added.code).toBe(0);
    expect(added.stdout.trim().split('\n')).toHaveLength(1);
    const { id, url, secret } = JSON.parse(added.stdout) as { id: string; url: string; secret: string };
    expect(url).toBe(`https://fleet.example.com/api/inbound/${id}`);

    const text = await runCli(['inbound', 'add', '--account', account, '--action', 'create_expense'], env);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^URL: {4}https:\/\/fleet\.example\.com\/api\/inbound\/inb_\w+$/m);
    expect(text.stdout).toMatch(/^Secret: [A-Za-z0-9_-]{43}$/m);
    expect(text.stdout).toMatch(/shown this once/);

    expect((await post(id, secret, '{"order": 17}')).status).toBe(202);
    expect((await post(id, secret, '[1]')).status).toBe(400);

    const listed = await runCli(['inbound', 'list', '--account', account], env);
    expect(listed.stdout).toContain(id);
    expect(listed.stdout).toContain('ERP audit');
    expect(listed.stdout).not.toContain(secret);
    const listedJson = JSON.parse((await runCli(['inbound', 'list', '--account', account, '--json'], env)).stdout) as { webhooks: { id: string; lastCallAt: string | null }[] };
    expect(listedJson.webhooks).toHaveLength(2);
    expect(listedJson.webhooks.find((w) => w.id === id)!.lastCallAt).not.toBeNull();

    const calls = JSON.parse((await runCli(['inbound', 'calls', id, '--json'], env)).stdout) as { calls: { status: number; body: unknown; error: string | null }[] };
    expect(calls.calls).toMatchObject([{ status: 400, error: 'the body must be a JSON object', body: [1] }, { status: 202, error: null, body: { order: 17 } }]);
    const one = await runCli(['inbound', 'calls', id, '--limit', '1'], env);
    expect(one.stdout.trim().split('\n')).toHaveLength(1);
    expect(one.stdout).toMatch(/ 400 {2}refused: the body must be a JSON object/);

    const removed = await runCli(['inbound', 'remove', id], env);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toMatch(/removed/);
    expect((await post(id, secret, '{"order": 18}')).status).toBe(401);
  });

  test.each([
    [['inbound', 'add', '--account', 'ACC', '--action', 'create_invoice'], /unknown action "create_invoice"/],
    [['inbound', 'add', '--account', 'acc_unknown', '--action', 'log_only'], /no account acc_unknown/],
    [['inbound', 'remove', 'inb_unknown'], /no inbound webhook inb_unknown/],
    [['inbound', 'calls', 'inb_unknown'], /no inbound webhook inb_unknown/],
    [['inbound', 'calls', 'inb_x', '--limit', 'lots'], /limit \(--limit\) must be a whole number from 1 to 1000/],
    [['inbound', 'remove'], /webhook id is required \(inbound remove WEBHOOK_ID\)/],
  ])('refuses %j with one line on stderr and writes nothing', async (args, message) => {
    const webhooks = () => f.tracker.ctx.db.query('SELECT * FROM inbound_webhooks ORDER BY id');
    const before = await webhooks();
    const r = await runCli(args.map((a) => (a === 'ACC' ? account : a)), env);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(message);
    expect(await webhooks()).toEqual(before);
  });
});
