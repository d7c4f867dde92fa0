// The tracker's side of the gateway link, on the real tracker (embedded PGlite): it refuses any
// request without the gateway's credentials, and a real gateway in front of it authenticates
// tokens against its token records (active, revoked, unknown).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createGateway, type Gateway } from '../../gateway/app.js';
import { parseConfig } from '../../shared/config.js';
import { ensureEmbeddedKeys } from '../../shared/keys.js';
import { createLogger } from '../../shared/logger.js';
import { publicKeyFrom, signToken } from '../../shared/tokens.js';
import { runVerb } from '../../tracker/admin/verbs.js';
import { startTracker, type RunningTracker } from '../../tracker/server.js';
import { NO_DEVICE_PORTS } from '../helpers/ports.js';

let dataDir: string;
let tracker: RunningTracker;
let gateway: Gateway;
let base: string;
let accountId: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'gateway-link-'));
  const config = parseConfig({ DATA_DIR: dataDir, DEMO: 'false', TRACKER_HTTP_PORT: '0', ...NO_DEVICE_PORTS, LOG_LEVEL: 'silent' });
  tracker = await startTracker(config, createLogger('tracker', 'silent'));
  base = `http://127.0.0.1:${tracker.httpPort}`;
  const keys = ensureEmbeddedKeys(dataDir);
  const gatewayConfig = parseConfig({ TRACKER_URL: base, DATA_DIR: dataDir, LOG_LEVEL: 'silent', RATE_LIMIT_PREFIX: `test:${process.pid}:link:` });
  gateway = createGateway({ config: gatewayConfig, logger: createLogger('gateway', 'silent'), publicKey: publicKeyFrom(keys.publicKeyPem), gatewaySecret: keys.gatewaySecret });
  accountId = ((await runVerb(tracker.ctx, 'accounts create', { name: 'Link test' })) as { id: string }).id;
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await tracker?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function newToken(scopes = 'read'): Promise<{ id: string; token: string }> {
  return (await runVerb(tracker.ctx, 'tokens create', { account: accountId, scopes })) as { id: string; token: string };
}

describe('the tracker behind the gateway link', () => {
  it('answers its health check to anyone', async () => {
    expect((await request(base).get('/healthz')).status).toBe(200);
  });

  it('refuses a request without the gateway secret, even with identity headers', async () => {
    const res = await request(base).get('/internal/tokens/tok_x').set('X-Account-Id', accountId).set('X-Token-Id', 'tok_x').set('X-Token-Scopes', 'read');
    expect(res.status).toBe(401);
    expect(typeof res.body.error).toBe('string');
    expect((await request(base).get('/api/public/v1/devices')).status).toBe(401);
  });

  it('refuses a wrong gateway secret', async () => {
    const res = await request(base).get('/internal/tokens/tok_x').set('X-Gateway-Secret', 'x'.repeat(43));
    expect(res.status).toBe(401);
  });

  it('serves the token status to the gateway', async () => {
    const { id } = await newToken();
    const res = await request(base).get(`/internal/tokens/${id}`).set('X-Gateway-Secret', tracker.ctx.gatewaySecret);
    expect(res.body).toEqual({ id, active: true, accountId });
  });
});

describe('a real gateway in front of the real tracker', () => {
  it('lets an active token through to the tracker, which answers for its account', async () => {
    const { token } = await newToken();
    const res = await request(gateway.app).get('/api/public/v1/devices').set('Authorization', `Bearer ${token}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [] });
    expect(res.headers['x-ratelimit-remaining']).toBe('59');
  });

  it('refuses a token the tracker does not know, and one it revoked', async () => {
    const { token, id } = await newToken();
    await runVerb(tracker.ctx, 'tokens revoke', { token: id });
    const revoked = await request(gateway.app).get('/api/public/v1/devices').set('Authorization', `Bearer ${token}`);
    expect(revoked.status).toBe(401);
    // Signed with the tracker's own key, but for an id it has no record of.
    const unknown = signToken({ tokenId: 'tok_aaaaaaaaaaaaaaaaaaaa', accountId, scopes: ['read'] }, tracker.ctx.privateKey);
    expect((await request(gateway.app).get('/api/public/v1/alerts').set('Authorization', `Bearer ${unknown}`)).status).toBe(401);
  });

  it('sees a revocation within a second', async () => {
    const { token, id } = await newToken();
    expect((await request(gateway.app).get('/api/public/v1/devices').set('Authorization', `Bearer ${token}`)).status).not.toBe(401);
    await runVerb(tracker.ctx, 'tokens revoke', { token: id });
    const started = Date.now();
    let status = 0;
    while (status !== 401 && Date.now() - started < 3000) {
      status = (await request(gateway.app).get('/api/public/v1/devices').set('Authorization', `Bearer ${token}`)).status;
      if (status !== 401) await new Promise((r) => setTimeout(r, 25));
    }
    expect(status).toBe(401);
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
