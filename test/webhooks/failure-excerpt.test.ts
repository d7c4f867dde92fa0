// What the delivery log shows of a receiver's failed answer: a short excerpt on one line, without
// terminal escapes or other control characters, and without what looks like a secret, in the CLI
// (a real process) as in the stored log the dashboard reads.
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { openDb } from '../../tracker/storage/open.js';
import { EXCERPT_CHARS, answerExcerpt } from '../../tracker/webhooks/excerpt.js';
import { runCli } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

jest.setTimeout(90_000);

const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhY2NfMSJ9.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg';
const NASTY = [
  '\u001b[2J\u001b[31mERROR\u001b[0m upstream refused\r\n',
  'Authorization: Bearer sk_live_51HxQkLmNoPqRsTuVwXyZ0123456789\n',
  `{"password": "hunter2-hunter2", "api_key":"abc123def456", "token": "${JWT}"}\n`,
  'callback=https://admin:s3cr3t@internal.example/x secret=whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\u202e\u0007 ',
  'x'.repeat(2000),
].join('');
const LEAKS = ['\u001b', '\r', '\n', '\u0007', '\u202e', 'sk_live_51HxQkLmNoPqRsTuVwXyZ0123456789', 'hunter2-hunter2', 'abc123def456', JWT, 's3cr3t', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'];

describe('the excerpt of an answer', () => {
  test('is one short line with no control characters and no secrets, and keeps the readable words', () => {
    const text = answerExcerpt(NASTY);
    expect(text.length).toBeLessThanOrEqual(EXCERPT_CHARS);
    for (const leak of LEAKS) expect(text).not.toContain(leak);
    expect(text).toContain('ERROR');
    expect(text).toContain('upstream refused');
    expect(text).toContain('Authorization: [redacted]');
    expect(answerExcerpt('denied for Bearer abcdefgh12345')).toBe('denied for Bearer [redacted]');
  });

  test.each([
    ['database on fire', 'database on fire'],
    ['  <h1>502 Bad Gateway</h1>\n<p>nginx</p>  ', '<h1>502 Bad Gateway</h1> <p>nginx</p>'],
    ['\u0000\u0001\u0002', ''],
  ])('%j becomes %j', (body, shown) => {
    expect(answerExcerpt(body)).toBe(shown);
  });
});

describe('the delivery log', () => {
  let t: TestDatabase;
  let env: Record<string, string | undefined>;
  let receiver: WebhookReceiver;
  let webhook: string;

  beforeAll(async () => {
    t = await createTestDatabase('postgres');
    receiver = await WebhookReceiver.start();
    receiver.respond = () => ({ status: 500, body: NASTY });
    env = { DATABASE_URL: t.url, DATA_DIR: t.dataDir, WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' };
    const cli = async (args: string[]) => JSON.parse((await runCli([...args, '--json'], env)).stdout);
    const account = (await cli(['accounts', 'create', '--name', 'Acme'])).id;
    await cli(['devices', 'add', '--account', account, '--imei', '359633100000001', '--name', 'Van 1']);
    webhook = (await cli(['webhooks', 'add', '--account', account, '--url', receiver.url()])).id;
  });
  afterAll(async () => {
    await receiver.close();
    await t.drop();
  });

  test('a failed test message and the deliveries log show only the cleaned excerpt', async () => {
    const tested = await runCli(['webhooks', 'test', webhook], env);
    expect(tested.stdout).toContain('HTTP 500: ERROR upstream refused Authorization: [redacted] {"password": [redacted]');
    const log = await runCli(['webhooks', 'deliveries', webhook], env);
    const json = await runCli(['webhooks', 'deliveries', webhook, '--json'], env);
    const stored = await openDb({ databaseUrl: t.url, dataDir: t.dataDir });
    const rows = await stored.query<{ error: string }>('SELECT error FROM webhook_attempts');
    await stored.close();
    expect(rows).toHaveLength(1);
    for (const leak of LEAKS) expect(rows[0]!.error).not.toContain(leak);
    // The CLI's own output has line breaks between entries; the answer's own are gone.
    for (const shown of [tested.stdout, log.stdout, json.stdout]) for (const leak of LEAKS.filter((l) => l !== '\n')) expect(shown).not.toContain(leak);
    expect(rows[0]!.error.length).toBeLessThanOrEqual('HTTP 500: '.length + EXCERPT_CHARS);
  });
});
