// Dashboard sign-in through the gateway and the real tracker: the set-password link, the session
// cookie, CSRF and Origin checks, sign-in limits and session expiry.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { runVerb } from '../../tracker/admin/verbs.js';
import { digest } from '../../tracker/users/secrets.js';
import { sweepSessions } from '../../tracker/users/sign-in-sessions.js';
import { account, createOwner, FormClient, signIn, startDashboardStack, type DashboardStack } from '../helpers/dashboard.js';
import { sample } from '../helpers/metrics.js';

let stack: DashboardStack;
let acme: string;
const PASSWORD = 'correct horse battery staple';
const WRONG = 'The email address or password is not correct.';

beforeAll(async () => {
  stack = await startDashboardStack({ DASHBOARD_LOGIN_MAX_FAILURES: '3', DASHBOARD_LOGIN_MAX_FAILURES_PER_ADDRESS: '6' });
  acme = await account(stack, 'Acme');
  await createOwner(stack, acme, 'owner@acme.test', PASSWORD);
}, 60_000);
afterAll(() => stack.close());
// Every request of these tests comes from 127.0.0.1: each test starts with no failed sign-ins counted.
beforeEach(() => stack.tracker.ctx.db.query('DELETE FROM dashboard_login_failures'));

const sessions = async (where: string) => (await stack.tracker.ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM dashboard_sessions WHERE ${where}`))[0]!.n;
const tokenCount = async () => (await stack.tracker.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM api_tokens WHERE account_id = $1', [acme]))[0]!.n;

describe('the set-password link', () => {
  test('works once: sets the password, then shows that it has been used', async () => {
    const { setPasswordUrl, expiresAt } = (await runVerb(stack.tracker.ctx, 'users create', { account: acme, email: 'Second@Acme.test' })) as { setPasswordUrl: string; expiresAt: Date };
    const link = new URL(setPasswordUrl);
    expect(link.pathname).toBe('/dashboard/set-password');
    expect(new Date(expiresAt).getTime() - Date.now()).toBeGreaterThan(23 * 3_600_000);
    const token = link.searchParams.get('token')!;
    const client = new FormClient(stack.url);
    const form = await client.get(`/dashboard/set-password?token=${encodeURIComponent(token)}`);
    expect(form.status).toBe(200);
    expect(form.text).toContain('second@acme.test');

    const short = await client.post('/dashboard/set-password', { token, password: 'too short', confirm: 'too short' });
    expect(short.status).toBe(400);
    expect(short.text).toContain('password must be at least 12 characters');
    const mismatch = await client.post('/dashboard/set-password', { token, password: PASSWORD, confirm: `${PASSWORD}!` });
    expect(mismatch.status).toBe(400);
    expect(mismatch.text).toContain('the two passwords are not the same');

    const set = await client.post('/dashboard/set-password', { token, password: PASSWORD, confirm: PASSWORD });
    expect(set.status).toBe(303);
    expect(set.location).toBe('/dashboard/login?password=set');
    expect((await client.get(`/dashboard/set-password?token=${encodeURIComponent(token)}`)).status).toBe(404);
    const again = await client.post('/dashboard/set-password', { token, password: 'another long password', confirm: 'another long password' });
    expect(again.status).toBe(404);
    await signIn(stack, 'second@acme.test', PASSWORD);
  });

  test('a new link replaces the old one, and setting the password ends every session', async () => {
    const first = (await runVerb(stack.tracker.ctx, 'users create', { account: acme, email: 'third@acme.test' })) as { setPasswordUrl: string };
    const second = (await runVerb(stack.tracker.ctx, 'users reset-password', { email: 'third@acme.test' })) as { setPasswordUrl: string };
    const client = new FormClient(stack.url);
    expect((await client.get(new URL(first.setPasswordUrl).pathname + new URL(first.setPasswordUrl).search)).status).toBe(404);
    const token = new URL(second.setPasswordUrl).searchParams.get('token')!;
    expect((await client.post('/dashboard/set-password', { token, password: PASSWORD, confirm: PASSWORD })).status).toBe(303);

    const signedIn = await signIn(stack, 'third@acme.test', PASSWORD);
    expect((await signedIn.get('/dashboard/devices')).status).toBe(200);
    const reset = (await runVerb(stack.tracker.ctx, 'users reset-password', { email: 'third@acme.test' })) as { setPasswordUrl: string };
    const newPassword = 'a different long password';
    const resetToken = new URL(reset.setPasswordUrl).searchParams.get('token')!;
    expect((await client.post('/dashboard/set-password', { token: resetToken, password: newPassword, confirm: newPassword })).status).toBe(303);
    expect((await signedIn.get('/dashboard/devices')).location).toMatch(/^\/dashboard\/login\?/);
  });

  test('100 posts at once with made-up links do no password work: the owner still signs in quickly', async () => {
    const timedSignIn = async () => {
      const client = new FormClient(stack.url);
      await client.get('/dashboard/login');
      const started = performance.now();
      const res = await client.post('/dashboard/login', { email: 'owner@acme.test', password: PASSWORD });
      expect(res.status).toBe(303);
      return performance.now() - started;
    };
    const quiet = Math.min(await timedSignIn(), await timedSignIn());
    // From 100 addresses, so that no per-address limit is what keeps them cheap.
    const attacker = new FormClient(stack.proxiedUrl, stack.url);
    const burst = Array.from({ length: 100 }, (_, i) =>
      attacker.post('/dashboard/set-password', { token: `made-up-${i}`, password: PASSWORD, confirm: PASSWORD }, { 'x-forwarded-for': `198.18.0.${i + 1}` }),
    );
    await sleep(20);
    const during = await timedSignIn();
    const answers = await Promise.all(burst);
    console.log(`sign-in: ${quiet.toFixed(0)} ms alone, ${during.toFixed(0)} ms during 100 made-up set-password posts`);
    expect(answers.map((a) => a.status)).toEqual(Array(100).fill(404));
    expect(during).toBeLessThan(quiet + 2500);
  });

  test('each address may send 10 set-password forms a window, then gets 429 with Retry-After; others are not affected', async () => {
    const client = new FormClient(stack.proxiedUrl, stack.url);
    const from = { 'x-forwarded-for': '198.51.100.99' };
    for (let i = 0; i < 10; i++) expect((await client.post('/dashboard/set-password', { token: `guess-${i}`, password: PASSWORD, confirm: PASSWORD }, from)).status).toBe(404);
    const refused = await client.post('/dashboard/set-password', { token: 'guess-10', password: PASSWORD, confirm: PASSWORD }, from);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(800);
    expect(refused.text).toContain('Too many attempts to set a password. Try again in 15 minutes.');
    expect(sample(await stack.tracker.ctx.metrics.registry.metrics(), 'fleet_dashboard_throttled_total', { form: 'set_password' })).toBe(1);
    const { setPasswordUrl } = (await runVerb(stack.tracker.ctx, 'users create', { account: acme, email: 'fourth@acme.test' })) as { setPasswordUrl: string };
    const token = new URL(setPasswordUrl).searchParams.get('token')!;
    expect((await client.post('/dashboard/set-password', { token, password: PASSWORD, confirm: PASSWORD }, { 'x-forwarded-for': '198.51.100.100' })).status).toBe(303);
  });

  test('an unknown or missing token shows the same page', async () => {
    const client = new FormClient(stack.url);
    expect((await client.get('/dashboard/set-password?token=not-a-token')).status).toBe(404);
    expect((await client.get('/dashboard/set-password')).status).toBe(404);
  });
});

describe('signing in', () => {
  test('a wrong password and an unknown email get the same answer', async () => {
    const client = new FormClient(stack.url);
    await client.get('/dashboard/login');
    const wrong = await client.post('/dashboard/login', { email: 'owner@acme.test', password: 'not the password' });
    const unknown = await client.post('/dashboard/login', { email: 'nobody@acme.test', password: 'not the password' });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.text).toContain(WRONG);
    expect(unknown.text).toContain(WRONG);
    expect(wrong.headers.getSetCookie().some((c) => c.startsWith('fleet_session='))).toBe(false);
  });

  test('the session cookie is HttpOnly, SameSite=Lax, limited to /dashboard, and Secure only over TLS', async () => {
    const plain = new FormClient(stack.url);
    await plain.get('/dashboard/login');
    const res = await plain.post('/dashboard/login', { email: 'OWNER@acme.test', password: PASSWORD, next: '/dashboard/tokens' });
    expect(res.status).toBe(303);
    expect(res.location).toBe('/dashboard/tokens');
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('fleet_session='))!;
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Lax/);
    expect(cookie).toMatch(/; Path=\/dashboard/);
    expect(cookie).not.toMatch(/; Secure/);

    // Behind nginx, which tells the gateway the request came over TLS.
    const tls = new FormClient(stack.proxiedUrl, stack.url);
    const proxyHeaders = { 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.7' };
    await tls.get('/dashboard/login', proxyHeaders);
    const secure = await tls.post('/dashboard/login', { email: 'owner@acme.test', password: PASSWORD }, proxyHeaders);
    expect(secure.status).toBe(303);
    expect(secure.headers.getSetCookie().find((c) => c.startsWith('fleet_session='))).toMatch(/; Secure/);
  });

  test('"next" only leads to dashboard pages', async () => {
    const client = new FormClient(stack.url);
    await client.get('/dashboard/login');
    const res = await client.post('/dashboard/login', { email: 'owner@acme.test', password: PASSWORD, next: '//evil.example/dashboard/' });
    expect(res.location).toBe('/dashboard/devices');
  });

  test('"next" with encoded dots or slashes, dot segments or empty segments is not followed', async () => {
    for (const next of ['/dashboard/%2e%2e/api-docs', '/dashboard/%2E%2E%2Fapi-docs', '/dashboard/..%2f..%2fapi-docs', '/dashboard/%2fevil.example', '/dashboard/%5c%5cevil.example', '/dashboard/./devices', '/dashboard//evil.example']) {
      const client = new FormClient(stack.url);
      const form = await client.get(`/dashboard/login?next=${encodeURIComponent(next)}`);
      expect(form.text).not.toContain('name="next"');
      const res = await client.post('/dashboard/login', { email: 'owner@acme.test', password: PASSWORD, next });
      expect(res.location).toBe('/dashboard/devices');
    }
    const client = new FormClient(stack.url);
    await client.get('/dashboard/login');
    expect((await client.post('/dashboard/login', { email: 'owner@acme.test', password: PASSWORD, next: '/dashboard/alerts?status=acknowledged' })).location).toBe('/dashboard/alerts?status=acknowledged');
  });

  test('a page asked for without a session leads to sign-in and back', async () => {
    const client = new FormClient(stack.url);
    const res = await client.get('/dashboard/tokens');
    expect(res.status).toBe(303);
    expect(res.location).toBe('/dashboard/login?next=%2Fdashboard%2Ftokens');
  });

  test('signing out ends the session on the server', async () => {
    const client = await signIn(stack, 'owner@acme.test', PASSWORD);
    await client.get('/dashboard/devices');
    const stolen = new Map(client.cookies);
    const out = await client.post('/dashboard/logout', {});
    expect(out.status).toBe(303);
    expect(client.cookies.has('fleet_session')).toBe(false);
    const replay = new FormClient(stack.url);
    for (const [k, v] of stolen) replay.cookies.set(k, v);
    expect((await replay.get('/dashboard/devices')).location).toMatch(/^\/dashboard\/login\?.*expired=1/);
  });
});

describe('CSRF and Origin', () => {
  let client: FormClient;
  beforeAll(async () => {
    client = await signIn(stack, 'owner@acme.test', PASSWORD);
  });

  test('a form post without the session token, or with another session’s, is refused and changes nothing', async () => {
    const before = await tokenCount();
    await client.get('/dashboard/tokens');
    const none = await client.post('/dashboard/tokens', { name: 'no token', scopes: 'read', _csrf: null });
    expect(none.status).toBe(403);
    expect(none.text).toContain('out of date');
    const other = await signIn(stack, 'owner@acme.test', PASSWORD);
    await other.get('/dashboard/tokens');
    const foreign = await client.post('/dashboard/tokens', { name: 'foreign token', scopes: 'read', _csrf: other.csrf() });
    expect(foreign.status).toBe(403);
    expect(await tokenCount()).toBe(before);
    const ok = await client.post('/dashboard/tokens', { name: 'real', scopes: 'read' });
    expect(ok.status).toBe(201);
    expect(await tokenCount()).toBe(before + 1);
  });

  test('a post from another origin, or with no Origin or Referer at all, is refused even with the right token', async () => {
    const before = await tokenCount();
    await client.get('/dashboard/tokens');
    const csrf = client.csrf()!;
    const cross = await client.post('/dashboard/tokens', { name: 'cross', scopes: 'read', _csrf: csrf }, { origin: 'https://evil.example' });
    expect(cross.status).toBe(403);
    expect(cross.text).toContain('another site');
    const nullOrigin = await client.post('/dashboard/tokens', { name: 'null', scopes: 'read', _csrf: csrf }, { origin: 'null' });
    expect(nullOrigin.status).toBe(403);
    client.origin = null;
    const bare = await client.post('/dashboard/tokens', { name: 'bare', scopes: 'read', _csrf: csrf });
    expect(bare.status).toBe(403);
    const referred = await client.post('/dashboard/tokens', { name: 'referred', scopes: 'read', _csrf: csrf }, { referer: `${stack.url}/dashboard/tokens` });
    expect(referred.status).toBe(201);
    client.origin = stack.url;
    expect(await tokenCount()).toBe(before + 1);
  });

  test("a post whose Origin is only the request's own host, not PUBLIC_BASE_URL's, is refused", async () => {
    // The second gateway answers on another host and port: a page served from there is not ours.
    const own = await signIn(stack, 'owner@acme.test', PASSWORD, stack.proxiedUrl).catch((err: Error) => err);
    expect(own).toBeInstanceOf(Error);
    expect((own as Error).message).toMatch(/^sign-in answered 403/);
    const before = await tokenCount();
    await client.get('/dashboard/tokens');
    const foreignHost = await client.post('/dashboard/tokens', { name: 'host', scopes: 'read' }, { origin: 'http://localhost:8080' });
    expect(foreignHost.status).toBe(403);
    expect(await tokenCount()).toBe(before);
  });

  test('the sign-in form needs its own token (double-submit cookie)', async () => {
    const fresh = new FormClient(stack.url);
    const res = await fresh.post('/dashboard/login', { email: 'owner@acme.test', password: PASSWORD, _csrf: 'guessed' });
    expect(res.status).toBe(403);
    expect(res.headers.getSetCookie().some((c) => c.startsWith('fleet_session='))).toBe(false);
    // The refusal hands out a token, so the next try works.
    expect((await fresh.post('/dashboard/login', { email: 'owner@acme.test', password: PASSWORD })).status).toBe(303);
  });
});

test('the API docs page is sent with the dashboard’s security headers', async () => {
  const res = await fetch(`${stack.url}/api-docs`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'.*script-src 'self'.*frame-ancestors 'none'/);
  expect(res.headers.get('content-security-policy')).not.toMatch(/unsafe-inline|unsafe-eval/);
  expect(res.headers.get('x-frame-options')).toBe('DENY');
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  for (const path of ['/api-docs/openapi.json', '/api-docs/init.js']) expect((await fetch(`${stack.url}${path}`)).headers.get('x-content-type-options')).toBe('nosniff');
});

describe('sign-in limits', () => {
  const attempt = async (client: FormClient, email: string, password: string, headers: Record<string, string> = {}) => {
    await client.get('/dashboard/login', headers);
    return client.post('/dashboard/login', { email, password }, headers);
  };

  test('after 3 failures for one email from one address, each further try there waits 2, 4… seconds, with Retry-After', async () => {
    await createOwner(stack, acme, 'limited@acme.test', PASSWORD);
    const client = new FormClient(stack.proxiedUrl, stack.url);
    const here = { 'x-forwarded-for': '198.51.100.1' };
    for (let i = 1; i <= 3; i++) expect((await attempt(client, 'limited@acme.test', 'wrong password', here)).status).toBe(401);
    const refused = await attempt(client, 'limited@acme.test', PASSWORD, here);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(2);
    expect(refused.text).toMatch(/Too many sign-in attempts. Try again in [12] seconds?\./);
    expect(sample(await stack.tracker.ctx.metrics.registry.metrics(), 'fleet_dashboard_throttled_total', { form: 'sign_in' })).toBeGreaterThanOrEqual(1);
    await sleep(2100);
    expect((await attempt(client, 'limited@acme.test', 'wrong password', here)).status).toBe(401);
    const longer = await attempt(client, 'limited@acme.test', PASSWORD, here);
    expect(longer.status).toBe(429);
    expect(Number(longer.headers.get('retry-after'))).toBeGreaterThan(2);
    expect(Number(longer.headers.get('retry-after'))).toBeLessThanOrEqual(4);
    // An email without a user is limited the same way: the answers do not tell them apart.
    const ghost = { 'x-forwarded-for': '198.51.100.2' };
    for (let i = 1; i <= 3; i++) expect((await attempt(client, 'ghost@acme.test', 'wrong password', ghost)).status).toBe(401);
    expect((await attempt(client, 'ghost@acme.test', 'wrong password', ghost)).status).toBe(429);
  });

  test('failures from an attacker’s addresses never keep the owner out at their own', async () => {
    const attacker = new FormClient(stack.proxiedUrl, stack.url);
    for (let n = 1; n <= 3; n++) {
      const from = { 'x-forwarded-for': `203.0.113.${n}` };
      for (let i = 0; i < 6; i++) expect([401, 429]).toContain((await attempt(attacker, 'owner@acme.test', 'wrong password', from)).status);
      expect((await attempt(attacker, 'owner@acme.test', PASSWORD, from)).status).toBe(429);
    }
    const owner = new FormClient(stack.proxiedUrl, stack.url);
    const started = Date.now();
    expect((await attempt(owner, 'owner@acme.test', PASSWORD, { 'x-forwarded-for': '192.0.2.44' })).status).toBe(303);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  test('one address is limited across emails, and cannot escape by sending its own forwarding headers', async () => {
    const client = new FormClient(stack.url);
    const spoof = (n: number) => ({ 'x-forwarded-for': `192.0.2.${n}`, 'x-client-address': `192.0.2.${n}` });
    for (let i = 1; i <= 6; i++) expect((await attempt(client, `user${i}@other.test`, 'wrong password', spoof(i))).status).toBe(401);
    const refused = await attempt(client, 'owner@acme.test', PASSWORD, spoof(7));
    expect(refused.status).toBe(429);
    // The same person from another address (as nginx states it) may still sign in.
    const elsewhere = new FormClient(stack.proxiedUrl, stack.url);
    expect((await attempt(elsewhere, 'owner@acme.test', PASSWORD, { 'x-forwarded-for': '192.0.2.200' })).status).toBe(303);
  });

  test('a successful sign-in gives the address its attempt back and clears the email’s count', async () => {
    const client = new FormClient(stack.proxiedUrl, stack.url);
    const here = { 'x-forwarded-for': '198.51.100.77' };
    for (let i = 0; i < 2; i++) expect((await attempt(client, 'owner@acme.test', 'wrong password', here)).status).toBe(401);
    expect((await attempt(client, 'owner@acme.test', PASSWORD, here)).status).toBe(303);
    const after = new FormClient(stack.proxiedUrl, stack.url);
    for (let i = 0; i < 2; i++) expect((await attempt(after, 'owner@acme.test', 'wrong password', here)).status).toBe(401);
    expect((await attempt(after, 'owner@acme.test', PASSWORD, here)).status).toBe(303);
  });
});

describe('session expiry', () => {
  let client: FormClient;
  const mine = () => digest(client.cookies.get('fleet_session')!);
  const sessionRow = async () =>
    (await stack.tracker.ctx.db.query<{ idle: number; total: number }>(
      'SELECT extract(epoch FROM expires_at - now())::int AS idle, extract(epoch FROM expires_at - created_at)::int AS total FROM dashboard_sessions WHERE id_hash = $1',
      [mine()],
    ))[0];
  /** Moves the session's clock fields, as if time had passed. */
  const age = (sql: string) => stack.tracker.ctx.db.query(`UPDATE dashboard_sessions SET ${sql} WHERE id_hash = $1`, [mine()]);

  test('a session unused past the idle time is refused', async () => {
    client = await signIn(stack, 'owner@acme.test', PASSWORD);
    expect((await client.get('/dashboard/devices')).status).toBe(200);
    // As the row stands 31 minutes after its last use.
    await age("seen_at = now() - interval '31 minutes', expires_at = now() - interval '1 minute'");
    const res = await client.get('/dashboard/devices');
    expect(res.status).toBe(303);
    expect(res.location).toBe('/dashboard/login?next=%2Fdashboard%2Fdevices&expired=1');
    expect((await client.get('/dashboard/login?expired=1')).text).toContain('Your session has ended');
  });

  test('use moves the idle expiry forward, but never past the maximum after sign-in', async () => {
    client = await signIn(stack, 'owner@acme.test', PASSWORD);
    expect((await sessionRow())!.idle).toBeGreaterThan(29 * 60);
    await age("seen_at = now() - interval '10 minutes', expires_at = now() + interval '20 minutes'");
    await client.get('/dashboard/devices');
    expect((await sessionRow())!.idle).toBeGreaterThan(29 * 60);
    // Signed in 11 h 50 min ago: use now extends it only to 12 h after sign-in.
    await age("created_at = now() - interval '11 hours 50 minutes', seen_at = now() - interval '5 minutes', expires_at = now() + interval '25 minutes'");
    await client.get('/dashboard/devices');
    const row = (await sessionRow())!;
    expect(row.idle).toBeLessThanOrEqual(10 * 60);
    expect(row.total).toBe(12 * 3600);
  });

  test('expired sessions are swept from the table', async () => {
    client = await signIn(stack, 'owner@acme.test', PASSWORD);
    await age("expires_at = now() - interval '1 second'");
    const live = await sessions('expires_at > now()');
    expect(await sessions('expires_at <= now()')).toBeGreaterThan(0);
    await sweepSessions(stack.tracker.ctx.db);
    expect(await sessionRow()).toBeUndefined();
    expect(await sessions('expires_at <= now()')).toBe(0);
    expect(await sessions('expires_at > now()')).toBe(live);
  });
});
