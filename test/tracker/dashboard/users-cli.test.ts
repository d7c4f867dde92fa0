// `admin users create` and `admin users reset-password`: one-time set-password links printed by
// the operator CLI, directly on PostgreSQL and through a running tracker on the embedded database.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { parseConfig } from '../../../shared/config.js';
import { createLogger } from '../../../shared/logger.js';
import { startTracker } from '../../../tracker/server.js';
import { openDb } from '../../../tracker/storage/open.js';
import { findUserByLink } from '../../../tracker/users/repository.js';
import { digest } from '../../../tracker/users/secrets.js';
import { runCli } from '../../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/databases.js';
import { NO_DEVICE_PORTS, freePort } from '../../helpers/ports.js';

const tokenOf = (url: string) => new URL(url).searchParams.get('token')!;

describe('users commands on PostgreSQL', () => {
  let t: TestDatabase;
  let env: Record<string, string | undefined>;
  let accountId: string;

  beforeAll(async () => {
    t = await createTestDatabase('postgres');
    env = { DATABASE_URL: t.url, DATA_DIR: t.dataDir, TRACKER_URL: `http://127.0.0.1:${await freePort()}`, PUBLIC_BASE_URL: 'https://fleet.example.com', DASHBOARD_PASSWORD_LINK_HOURS: '48' };
    accountId = JSON.parse((await runCli(['accounts', 'create', '--name', 'Acme', '--json'], env)).stdout).id;
  });
  afterAll(() => t.drop());

  test('create prints one JSON object with a link under PUBLIC_BASE_URL that expires as set', async () => {
    const r = await runCli(['users', 'create', '--account', accountId, '--email', ' Owner@Acme.Example ', '--json'], env);
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    const out = JSON.parse(r.stdout) as { id: string; email: string; accountId: string; setPasswordUrl: string; expiresAt: string };
    expect(out).toMatchObject({ id: expect.stringMatching(/^usr_/), email: 'owner@acme.example', accountId });
    expect(out.setPasswordUrl).toMatch(/^https:\/\/fleet\.example\.com\/dashboard\/set-password\?token=[A-Za-z0-9_-]{43}$/);
    const hours = (Date.parse(out.expiresAt) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(47.9);
    expect(hours).toBeLessThanOrEqual(48);
    // Only a digest is stored: the token itself is nowhere in the database.
    const db = await openDb({ databaseUrl: t.url, dataDir: t.dataDir });
    try {
      expect(await findUserByLink(db, digest(tokenOf(out.setPasswordUrl)))).toMatchObject({ id: out.id });
      const dump = JSON.stringify(await db.query('SELECT * FROM dashboard_users'));
      expect(dump).not.toContain(tokenOf(out.setPasswordUrl));
    } finally {
      await db.close();
    }
  });

  test('without --json it says what to do with the link', async () => {
    const r = await runCli(['users', 'create', '--account', accountId, '--email', 'second@acme.example'], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/it works once, until \d{4}-\d\d-\d\dT/);
    expect(r.stdout).toMatch(/https:\/\/fleet\.example\.com\/dashboard\/set-password\?token=/);
  });

  test('reset-password prints a new link and the old one stops working', async () => {
    const first = JSON.parse((await runCli(['users', 'create', '--account', accountId, '--email', 'third@acme.example', '--json'], env)).stdout) as { setPasswordUrl: string };
    const second = await runCli(['users', 'reset-password', '--email', 'THIRD@acme.example', '--json'], env);
    expect(second.code).toBe(0);
    const { setPasswordUrl } = JSON.parse(second.stdout) as { setPasswordUrl: string };
    const db = await openDb({ databaseUrl: t.url, dataDir: t.dataDir });
    try {
      expect(await findUserByLink(db, digest(tokenOf(first.setPasswordUrl)))).toBeNull();
      expect(await findUserByLink(db, digest(tokenOf(setPasswordUrl)))).not.toBeNull();
    } finally {
      await db.close();
    }
  });

  test.each([
    [['users', 'create', '--account', 'ACC', '--email', 'not-an-email'], /email must be an email address/],
    [['users', 'create', '--account', 'ACC'], /email is required/],
    [['users', 'create', '--account', 'acc_unknown', '--email', 'x@acme.example'], /no account acc_unknown/],
    [['users', 'create', '--account', 'ACC', '--email', 'OWNER@acme.example'], /a dashboard user with email owner@acme.example already exists/],
    [['users', 'reset-password', '--email', 'nobody@acme.example'], /no dashboard user nobody@acme.example/],
  ])('refuses %j with one line on stderr and writes nothing', async (args, message) => {
    const count = async () => {
      const db = await openDb({ databaseUrl: t.url, dataDir: t.dataDir });
      try {
        return JSON.stringify(await db.query('SELECT id, password_link_hash FROM dashboard_users ORDER BY id'));
      } finally {
        await db.close();
      }
    };
    const before = await count();
    const r = await runCli(args.map((a) => (a === 'ACC' ? accountId : a)), env);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(message);
    expect(await count()).toBe(before);
  });
});

test('through a running tracker on the embedded database, the tracker’s PUBLIC_BASE_URL is used', async () => {
  const t = await createTestDatabase('pglite');
  const ports = { TRACKER_HTTP_PORT: '0', ...NO_DEVICE_PORTS };
  const tracker = await startTracker(parseConfig({ DATA_DIR: t.dataDir, DEMO: 'false', PUBLIC_BASE_URL: 'https://live.example.com', ...ports }), createLogger('tracker', 'silent'));
  try {
    const env = { DATA_DIR: t.dataDir, TRACKER_URL: `http://127.0.0.1:${tracker.httpPort}` };
    const { id } = JSON.parse((await runCli(['accounts', 'create', '--name', 'Live', '--json'], env)).stdout) as { id: string };
    const r = await runCli(['users', 'create', '--account', id, '--email', 'live@example.com', '--json'], env);
    expect(r.code).toBe(0);
    const { setPasswordUrl } = JSON.parse(r.stdout) as { setPasswordUrl: string };
    expect(setPasswordUrl.startsWith('https://live.example.com/dashboard/set-password?token=')).toBe(true);
    expect(await findUserByLink(tracker.ctx.db, digest(tokenOf(setPasswordUrl)))).toMatchObject({ email: 'live@example.com' });
  } finally {
    await tracker.close();
    await t.drop();
  }
});
