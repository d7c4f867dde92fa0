// An account holds at most MAX_TOKENS_PER_ACCOUNT active API tokens: the operator CLI and the
// dashboard both refuse one more with a clear message, parallel creations included, and a revoked
// token frees its place.
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { runVerb } from '../../tracker/admin/verbs.js';
import { runCli } from '../helpers/cli.js';
import { account, createOwner, signIn, startDashboardStack, type DashboardStack } from '../helpers/dashboard.js';

let stack: DashboardStack;
let env: Record<string, string | undefined>;
const PASSWORD = 'correct horse battery staple';
const MAX = 3;

beforeAll(async () => {
  stack = await startDashboardStack({ MAX_TOKENS_PER_ACCOUNT: String(MAX) });
  env = { DATABASE_URL: stack.db.url, DATA_DIR: stack.db.dataDir, TRACKER_URL: `http://127.0.0.1:${stack.tracker.httpPort}`, MAX_TOKENS_PER_ACCOUNT: String(MAX) };
}, 60_000);
afterAll(() => stack.close());

const active = async (accountId: string) =>
  (await stack.tracker.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM api_tokens WHERE account_id = $1 AND revoked_at IS NULL', [accountId]))[0]!.n;

test('the CLI refuses a token past the cap, and a revoked one frees a place', async () => {
  const acme = await account(stack, 'Acme');
  const ids: string[] = [];
  for (let i = 0; i < MAX; i++) {
    const r = await runCli(['tokens', 'create', '--account', acme, '--scopes', 'read', '--name', `erp ${i}`, '--json'], env);
    expect(r.code).toBe(0);
    ids.push(JSON.parse(r.stdout).id);
  }
  const refused = await runCli(['tokens', 'create', '--account', acme, '--scopes', 'read', '--name', 'one too many'], env);
  expect(refused.code).not.toBe(0);
  expect(refused.stderr).toContain(`this account already has ${MAX} active API tokens, the most it may have: revoke one it no longer uses first`);
  expect(await active(acme)).toBe(MAX);
  expect((await runCli(['tokens', 'revoke', ids[0]!], env)).code).toBe(0);
  expect((await runCli(['tokens', 'create', '--account', acme, '--scopes', 'read', '--name', 'replacement'], env)).code).toBe(0);
  expect(await active(acme)).toBe(MAX);
}, 60_000);

test('creations at the same moment cannot pass the cap together', async () => {
  const rush = await account(stack, 'Rush');
  const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => runVerb(stack.tracker.ctx, 'tokens create', { account: rush, scopes: 'read', name: `t${i}` })));
  expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(MAX);
  expect(await active(rush)).toBe(MAX);
});

test('the dashboard shows the refusal on the tokens page and creates nothing', async () => {
  const mine = await account(stack, 'Mine');
  await createOwner(stack, mine, 'me@mine.test', PASSWORD);
  const me = await signIn(stack, 'me@mine.test', PASSWORD);
  for (let i = 0; i < MAX; i++) {
    await me.get('/dashboard/tokens');
    expect((await me.post('/dashboard/tokens', { name: `t${i}`, scopes: 'read' })).status).toBe(201);
  }
  await me.get('/dashboard/tokens');
  const refused = await me.post('/dashboard/tokens', { name: 'one too many', scopes: 'read' });
  expect(refused.status).toBe(409);
  expect(refused.text).toContain(`The token was not created: this account already has ${MAX} active API tokens`);
  expect(refused.text).not.toContain('new-token-value');
  expect(await active(mine)).toBe(MAX);
});
