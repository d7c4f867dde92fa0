// A PostgreSQL outage as clients see it: the tracker answers 503 with Retry-After at once (not a 500
// after a wait), the gateway passes that on, its token check says "retry" rather than "backend
// unavailable", and both serve again once the database is back.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createPublicKey } from 'node:crypto';
import request from 'supertest';
import { createGateway, type Gateway } from '../../gateway/app.js';
import { parseConfig } from '../../shared/config.js';
import { INTERNAL_HEADERS } from '../../shared/internal.js';
import { createLogger } from '../../shared/logger.js';
import { runVerb } from '../../tracker/admin/verbs.js';
import { startTracker, type RunningTracker } from '../../tracker/server.js';
import { startCuttableProxy, type CuttableProxy } from '../helpers/cuttable-proxy.js';
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { NO_DEVICE_PORTS } from '../helpers/ports.js';

let db: TestDatabase;
let proxy: CuttableProxy;
let tracker: RunningTracker;
let base: string;
let accountId: string;
let gateway: Gateway;
let token: string;

beforeAll(async () => {
  db = await createTestDatabase('postgres');
  proxy = await startCuttableProxy(5432);
  const url = new URL(db.url!);
  url.port = String(proxy.port);
  const config = parseConfig({ DATABASE_URL: url.toString(), DATA_DIR: db.dataDir, TRACKER_HTTP_PORT: '0', ...NO_DEVICE_PORTS, DEMO: 'false' });
  tracker = await startTracker(config, createLogger('tracker', 'silent'));
  base = `http://127.0.0.1:${tracker.httpPort}`;
  accountId = ((await runVerb(tracker.ctx, 'accounts create', { name: 'Outage' })) as { id: string }).id;
  token = ((await runVerb(tracker.ctx, 'tokens create', { account: accountId, scopes: 'read' })) as { token: string }).token;
  const publicKey = createPublicKey(tracker.ctx.privateKey);
  gateway = createGateway({
    config: parseConfig({ TRACKER_URL: base, TOKEN_CACHE_MS: '300' }),
    logger: createLogger('gateway', 'silent'),
    publicKey,
    gatewaySecret: tracker.ctx.gatewaySecret,
  });
});
afterAll(async () => {
  await gateway.close();
  await tracker.close();
  await proxy.close();
  await db.drop();
});

const asGateway = (t: request.Test) => t.set(INTERNAL_HEADERS.secret, tracker.ctx.gatewaySecret);
const devices = () => asGateway(request(base).get('/api/public/v1/devices')).set(INTERNAL_HEADERS.accountId, accountId).set(INTERNAL_HEADERS.tokenId, 'tok_test').set(INTERNAL_HEADERS.scopes, 'read');

/** The devices call's status once it answers 200, or the last one after 5 s of trying. */
async function statusOnceBack(): Promise<number> {
  const deadline = Date.now() + 5000;
  let status = 0;
  while (status !== 200 && Date.now() < deadline) status = (await devices()).status;
  return status;
}

describe('database outage', () => {
  test('API, token check and dashboard get 503 with Retry-After at once while PostgreSQL is away, and 200 once it is back', async () => {
    expect((await devices()).status).toBe(200);
    await proxy.cut();
    for (const call of [devices, () => asGateway(request(base).get('/internal/tokens/tok_x')), () => asGateway(request(base).get('/api/public/v1/alerts')).set(INTERNAL_HEADERS.accountId, accountId).set(INTERNAL_HEADERS.tokenId, 'tok_test').set(INTERNAL_HEADERS.scopes, 'read')]) {
      const started = Date.now();
      const res = await call();
      const took = Date.now() - started;
      expect({ status: res.status, code: res.body.code, retryAfter: res.headers['retry-after'] }).toEqual({ status: 503, code: 'unavailable', retryAfter: expect.stringMatching(/^[1-9][0-9]*$/) });
      expect(took).toBeLessThan(300);
    }
    // The dashboard says the same as a page: a session cannot be looked up.
    const page = await asGateway(request(base).get('/dashboard/devices')).set('cookie', 'fleet_session=some-session-id');
    expect({ status: page.status, retryAfter: page.headers['retry-after'], html: page.type }).toEqual({ status: 503, retryAfter: '5', html: 'text/html' });
    expect(page.text).toContain('the database is unavailable; try again shortly');
    await proxy.restore();
    expect(await statusOnceBack()).toBe(200);
  });

  test('a transaction under way when the connection drops fails, and the tracker goes on', async () => {
    const slow = tracker.ctx.db.transaction((tx) => tx.query('SELECT pg_sleep(2)'));
    await new Promise((r) => setTimeout(r, 300));
    await proxy.cut();
    try {
      await expect(slow).rejects.toThrow();
    } finally {
      await proxy.restore();
    }
    expect(await statusOnceBack()).toBe(200);
  });

  test('through the gateway: the tracker 503 is passed on, and a failed token check says "retry", not "backend unavailable"', async () => {
    const viaGateway = () => request(gateway.app).get('/api/public/v1/devices').set('authorization', `Bearer ${token}`);
    expect((await viaGateway()).status).toBe(200);
    await proxy.cut();
    try {
      const forwarded = await viaGateway(); // the token's status is still cached: the tracker answers
      expect({ status: forwarded.status, code: forwarded.body.code, retryAfter: forwarded.headers['retry-after'] }).toEqual({ status: 503, code: 'unavailable', retryAfter: '5' });
      await new Promise((r) => setTimeout(r, 400)); // past the cache: the token check itself meets the outage
      const checked = await viaGateway();
      expect({ status: checked.status, code: checked.body.code, retryAfter: checked.headers['retry-after'] }).toEqual({ status: 503, code: 'unavailable', retryAfter: '5' });
    } finally {
      await proxy.restore();
    }
  });
});
