// The operator CLI end to end: real processes, the machine's PostgreSQL and embedded PGlite.
import { describe, expect, test, beforeAll, afterAll } from '@jest/globals';
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { runCli } from '../helpers/cli.js';
import { NO_DEVICE_PORTS, freePort } from '../helpers/ports.js';
import { parseConfig } from '../../shared/config.js';
import { createLogger } from '../../shared/logger.js';
import { findAccount } from '../../tracker/accounts/repository.js';
import { startTracker } from '../../tracker/server.js';

describe.each(['postgres', 'pglite'] as const)('admin CLI on %s', (engine) => {
  let t: TestDatabase;
  let env: Record<string, string | undefined>;
  let accountId: string;

  beforeAll(async () => {
    t = await createTestDatabase(engine);
    // A port nothing listens on: with PGlite the CLI finds no tracker and opens the data itself.
    env = { DATABASE_URL: t.url, DATA_DIR: t.dataDir, TRACKER_URL: `http://127.0.0.1:${await freePort()}` };
    const r = await runCli(['accounts', 'create', '--name', 'Acme', '--json'], env);
    expect(r.code).toBe(0);
    accountId = JSON.parse(r.stdout).id;
  });
  afterAll(() => t.drop());

  test('--json prints exactly one JSON object', async () => {
    const r = await runCli(['devices', 'add', '--account', accountId, '--imei', '359633100000001', '--name', 'Van 1', '--plate', 'AB-1', '--json'], env);
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: expect.stringMatching(/^dev_/), imei: '359633100000001', name: 'Van 1', plate: 'AB-1' });
  });

  test('tokens: create prints the value once, list never shows it, revoke marks it', async () => {
    const created = await runCli(['tokens', 'create', '--account', accountId, '--scopes', 'read,commands', '--name', 'erp', '--json'], env);
    expect(created.code).toBe(0);
    const { id, token } = JSON.parse(created.stdout) as { id: string; token: string };
    expect(token.split('.')).toHaveLength(3);
    const listed = await runCli(['tokens', 'list', '--account', accountId], env);
    expect(listed.stdout).toContain(id);
    expect(listed.stdout).toContain('active');
    expect(listed.stdout).not.toContain(token);
    const revoked = await runCli(['tokens', 'revoke', id], env);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toMatch(/revoked/);
    const after = JSON.parse((await runCli(['tokens', 'list', '--account', accountId, '--json'], env)).stdout) as { tokens: { id: string; status: string }[] };
    expect(after.tokens.find((x) => x.id === id)?.status).toBe('revoked');
  }, 120_000); // four CLI processes, each starting PGlite on its own: 15 s on a quiet machine

  // Each refusal is checked on one engine; the repository tests cover both for "nothing written".
  (engine === 'postgres' ? test.each : test.skip.each)([
    [['tokens', 'create', '--account', 'ACC', '--scopes', 'read,superuser'], /unknown scope "superuser"/],
    [['devices', 'add', '--account', 'ACC', '--imei', '35963310000000X', '--name', 'Bad'], /5 to 20 digits/],
    [['devices', 'add', '--account', 'ACC', '--imei', '1234', '--name', 'Short'], /5 to 20 digits/],
    [['devices', 'add', '--account', 'ACC', '--imei', '359633100000001', '--name', 'Dup'], /already exists/],
    [['devices', 'add', '--account', 'acc_unknown', '--imei', '359633100000777', '--name', 'Lost'], /no account acc_unknown/],
    [['tokens', 'create', '--account', 'acc_unknown', '--scopes', 'read'], /no account acc_unknown/],
  ])('refuses %j with one line on stderr and writes nothing', async (args, message) => {
    const before = (await runCli(['tokens', 'list', '--account', accountId, '--json'], env)).stdout;
    const r = await runCli(args.map((a) => (a === 'ACC' ? accountId : a)), env);
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(message);
    expect((await runCli(['tokens', 'list', '--account', accountId, '--json'], env)).stdout).toBe(before);
  });

  test('unknown commands and options print usage and exit 2', async () => {
    const r = await runCli(['devices', 'destroy'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown command "devices destroy"/);
    const o = await runCli(['accounts', 'create', '--nmae', 'x'], env);
    expect(o.code).toBe(2);
    expect(o.stderr).toMatch(/--nmae/);
  });
});

describe('admin CLI while the tracker owns the embedded database', () => {
  test('goes through the running tracker instead of opening the data directory', async () => {
    const t = await createTestDatabase('pglite');
    const config = parseConfig({ DATA_DIR: t.dataDir, TRACKER_HTTP_PORT: '0', ...NO_DEVICE_PORTS, DEMO: 'false', LOG_LEVEL: 'silent' });
    const tracker = await startTracker(config, createLogger('tracker', 'silent'));
    try {
      const env = { DATA_DIR: t.dataDir, TRACKER_URL: `http://127.0.0.1:${tracker.httpPort}` };
      const acc = await runCli(['accounts', 'create', '--name', 'Live', '--json'], env);
      expect(acc.code).toBe(0);
      const { id } = JSON.parse(acc.stdout) as { id: string };
      // The tracker's own connection sees the account at once: the CLI wrote through it.
      expect(await findAccount(tracker.ctx.db, id)).toMatchObject({ name: 'Live' });
      const bad = await runCli(['devices', 'add', '--account', id, '--imei', 'abc', '--name', 'X'], env);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toMatch(/5 to 20 digits/);
    } finally {
      await tracker.close();
      await t.drop();
    }
  });
});
