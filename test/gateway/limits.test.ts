// Rate limits: buckets and their counts, the headers, Retry-After, per-address throttling of
// failed attempts, per-webhook counting, Redis-backed counts, and Redis outages (fail open/closed).
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import request from 'supertest';
import { redisReady } from '../../gateway/redis.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { startStandInTracker, type StandInTracker } from '../helpers/stand-in-tracker.js';

const v1 = '/api/public/v1';
const LIMITS = { RATE_LIMIT_READ_PER_MINUTE: '60', RATE_LIMIT_WRITE_PER_MINUTE: '60', RATE_LIMIT_COMMANDS_PER_MINUTE: '10' };
let tracker: StandInTracker;
const open: TestGateway[] = [];

function gateway(env: Record<string, string> = {}): TestGateway {
  const g = startTestGateway(tracker, { ...LIMITS, ...env });
  open.push(g);
  return g;
}

/** A gateway whose Redis connection is up, so the first requests are counted too. */
async function redisGateway(env: Record<string, string>): Promise<TestGateway> {
  const g = gateway(env);
  if (!(await redisReady(g.redis!, 5000))) throw new Error('Redis did not answer');
  return g;
}

function fixture(account = 'acc_lim') {
  const device = tracker.addDevice(account);
  const { token, tokenId } = tracker.mint(account, ['read', 'commands']);
  return { device, token, tokenId, auth: { Authorization: `Bearer ${token}` } };
}

beforeAll(async () => {
  tracker = await startStandInTracker();
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((g) => g.close()));
});
afterAll(async () => {
  await tracker.close();
});

describe('per-token buckets (in-memory store)', () => {
  it('shares 60 reads a minute across the read routes, then 429 with Retry-After', async () => {
    const g = gateway();
    const { device, auth } = fixture();
    const paths = [`${v1}/devices`, `${v1}/devices/${device}/positions`, `${v1}/alerts`, `${v1}/devices/${device}`];
    for (let i = 0; i < 60; i++) {
      const res = await request(g.app).get(paths[i % paths.length]!).set(auth);
      expect(res.status).toBe(200);
      expect(res.headers['x-ratelimit-remaining']).toBe(String(59 - i));
    }
    const before = tracker.hits;
    const res = await request(g.app).get(`${v1}/alerts`).set(auth);
    expect(res.status).toBe(429);
    expect(typeof res.body.error).toBe('string');
    expect(res.headers['x-ratelimit-remaining']).toBe('0');
    const retry = Number(res.headers['retry-after']);
    expect(Number.isInteger(retry)).toBe(true);
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
    expect(tracker.hits).toBe(before);
  });

  it('sends the limit headers on every limited response', async () => {
    const g = gateway();
    const { auth } = fixture();
    const res = await request(g.app).get(`${v1}/devices`).set(auth);
    expect(res.headers['x-ratelimit-limit']).toBe('60');
    expect(res.headers['x-ratelimit-remaining']).toBe('59');
    const reset = Number(res.headers['x-ratelimit-reset']);
    expect(reset).toBeGreaterThan(Date.now() / 1000);
    expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 60);
    expect(res.headers.ratelimit).toMatch(/^"read"; r=59; t=\d+$/);
    expect(res.headers['ratelimit-policy']).toBe('"read"; q=60; w=60');
  });

  it('counts locate in its own bucket of 10, independent of reads', async () => {
    const g = gateway({ RATE_LIMIT_READ_PER_MINUTE: '2' });
    const { device, auth } = fixture();
    await request(g.app).get(`${v1}/devices`).set(auth);
    await request(g.app).get(`${v1}/devices`).set(auth);
    expect((await request(g.app).get(`${v1}/devices`).set(auth)).status).toBe(429);
    for (let i = 0; i < 10; i++) {
      const res = await request(g.app).post(`${v1}/devices/${device}/locate`).set(auth);
      expect(res.status).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBe('10');
    }
    const res = await request(g.app).post(`${v1}/devices/${device}/locate`).set(auth);
    expect(res.status).toBe(429);
    expect(res.headers.ratelimit).toMatch(/^"commands"; r=0; t=\d+$/);
  });

  it('counts the write routes in their own bucket of 60, independent of reads', async () => {
    const g = gateway({ RATE_LIMIT_READ_PER_MINUTE: '1' });
    const account = 'acc_writes';
    const device = tracker.addDevice(account);
    const { token } = tracker.mint(account, ['read', 'write']);
    const auth = { Authorization: `Bearer ${token}` };
    await request(g.app).get(`${v1}/geofences`).set(auth);
    expect((await request(g.app).get(`${v1}/geofences`).set(auth)).status).toBe(429);
    const writes = [
      () => request(g.app).post(`${v1}/geofences`).set(auth).send({ name: 'Depot' }),
      () => request(g.app).patch(`${v1}/devices/${device}/settings`).set(auth).send({ speedLimitKmh: 80 }),
      () => request(g.app).post(`${v1}/drivers`).set(auth).send({ name: 'Ann' }),
    ];
    for (let i = 0; i < 60; i++) {
      const res = await writes[i % writes.length]!();
      expect(res.status).toBeLessThan(300);
      expect(res.headers['x-ratelimit-remaining']).toBe(String(59 - i));
    }
    const res = await writes[0]!();
    expect(res.status).toBe(429);
    expect(res.headers['ratelimit-policy']).toBe('"write"; q=60; w=60');
  });

  it('gives each token its own count', async () => {
    const g = gateway({ RATE_LIMIT_READ_PER_MINUTE: '1' });
    const a = fixture('acc_same');
    const b = fixture('acc_same');
    expect((await request(g.app).get(`${v1}/alerts`).set(a.auth)).status).toBe(200);
    expect((await request(g.app).get(`${v1}/alerts`).set(a.auth)).status).toBe(429);
    expect((await request(g.app).get(`${v1}/alerts`).set(b.auth)).status).toBe(200);
  });
});

describe('requests without a valid token', () => {
  it('are throttled per client address, whatever token they try', async () => {
    const g = gateway({ RATE_LIMIT_ANONYMOUS_PER_MINUTE: '5' });
    for (let i = 0; i < 5; i++) {
      const res = await request(g.app).get(`${v1}/devices`).set('Authorization', `Bearer guess${i}.x.y`);
      expect(res.status).toBe(401);
    }
    const res = await request(g.app).get(`${v1}/devices`).set('Authorization', 'Bearer guess9.x.y');
    expect(res.status).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // A valid token is counted on its own bucket, not the address's.
    expect((await request(g.app).get(`${v1}/devices`).set(fixture().auth)).status).toBe(200);
  });

  it('read the client address from X-Forwarded-For only through TRUST_PROXY_HOPS proxies', async () => {
    const direct = gateway({ RATE_LIMIT_ANONYMOUS_PER_MINUTE: '1' });
    await request(direct.app).get(`${v1}/devices`).set('X-Forwarded-For', '203.0.113.1');
    const spoofed = await request(direct.app).get(`${v1}/devices`).set('X-Forwarded-For', '203.0.113.2');
    expect(spoofed.status).toBe(429); // no proxy trusted: the header is ignored

    const behindNginx = gateway({ RATE_LIMIT_ANONYMOUS_PER_MINUTE: '1', TRUST_PROXY_HOPS: '1' });
    await request(behindNginx.app).get(`${v1}/devices`).set('X-Forwarded-For', '203.0.113.1');
    const other = await request(behindNginx.app).get(`${v1}/devices`).set('X-Forwarded-For', '203.0.113.2');
    expect(other.status).toBe(401);
    const same = await request(behindNginx.app).get(`${v1}/devices`).set('X-Forwarded-For', '198.51.100.7, 203.0.113.1');
    expect(same.status).toBe(429); // one hop trusted: the client's own claim further left is ignored
  });
});

describe('routes without a token', () => {
  it('count inbound webhooks per webhook id', async () => {
    const g = gateway({ RATE_LIMIT_INBOUND_PER_MINUTE: '3' });
    const hook = tracker.addInbound('s');
    const other = tracker.addInbound('s');
    for (let i = 0; i < 3; i++) expect((await request(g.app).post(`/api/inbound/${hook}?secret=s`).send({})).status).toBe(200);
    const res = await request(g.app).post(`/api/inbound/${hook}?secret=s`).send({});
    expect(res.status).toBe(429);
    expect(res.headers['x-ratelimit-limit']).toBe('3');
    expect((await request(g.app).post(`/api/inbound/${other}?secret=s`).send({})).status).toBe(200);
  });

  it('count wrong-secret inbound calls per address only, never against the webhook', async () => {
    const g = gateway({ RATE_LIMIT_INBOUND_PER_MINUTE: '3', RATE_LIMIT_INBOUND_REFUSED_PER_MINUTE: '1000', TRUST_PROXY_HOPS: '1' });
    const hook = tracker.addInbound('s');
    for (let i = 0; i < 20; i++) {
      const res = await request(g.app).post(`/api/inbound/${hook}?secret=wrong`).set('x-forwarded-for', `198.51.100.${i}`).send({});
      expect(res.status).toBe(401);
    }
    for (let i = 0; i < 3; i++) expect((await request(g.app).post(`/api/inbound/${hook}?secret=s`).send({})).status).toBe(200);
    expect((await request(g.app).post(`/api/inbound/${hook}?secret=s`).send({})).status).toBe(429);
  });

  it('count the docs per address, apart from the API limits', async () => {
    const g = gateway({ RATE_LIMIT_DOCS_PER_MINUTE: '2', RATE_LIMIT_ANONYMOUS_PER_MINUTE: '1' });
    expect((await request(g.app).get('/api-docs')).status).toBe(200);
    expect((await request(g.app).get('/api-docs/openapi.json')).status).toBe(200);
    expect((await request(g.app).get('/api-docs')).status).toBe(429);
    expect((await request(g.app).get(`${v1}/devices`)).status).toBe(401);
  });

  it('count the dashboard per address, apart from the docs', async () => {
    const g = gateway({ RATE_LIMIT_DASHBOARD_PER_MINUTE: '2', RATE_LIMIT_DOCS_PER_MINUTE: '5' });
    expect((await request(g.app).get('/dashboard/login')).status).toBe(200);
    expect((await request(g.app).get('/dashboard/devices')).status).toBe(200);
    const res = await request(g.app).get('/dashboard/tokens');
    expect(res.status).toBe(429);
    expect(res.headers['ratelimit-policy']).toBe('"dashboard"; q=2; w=60');
    expect((await request(g.app).get('/api-docs')).status).toBe(200);
  });
});

describe('counts in Redis', () => {
  let inspect: Redis;
  beforeAll(() => {
    inspect = new Redis('redis://127.0.0.1:6379');
  });
  afterAll(async () => {
    await inspect.quit();
  });

  it('count in Redis under the configured prefix and refuse the 61st read', async () => {
    const g = await redisGateway({ REDIS_URL: 'redis://127.0.0.1:6379' });
    const { auth, tokenId } = fixture();
    const prefix = g.config.RATE_LIMIT_PREFIX;
    for (let i = 0; i < 60; i++) expect((await request(g.app).get(`${v1}/alerts`).set(auth)).status).toBe(200);
    expect(await inspect.get(`${prefix}read:{${tokenId}}`)).toBe('60');
    const res = await request(g.app).get(`${v1}/alerts`).set(auth);
    expect(res.status).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it('keep limiting after Redis forgets its scripts (NOSCRIPT)', async () => {
    const g = await redisGateway({ REDIS_URL: 'redis://127.0.0.1:6379', RATE_LIMIT_READ_PER_MINUTE: '3' });
    const { auth } = fixture();
    expect((await request(g.app).get(`${v1}/alerts`).set(auth)).headers['x-ratelimit-remaining']).toBe('2');
    await inspect.script('FLUSH');
    expect((await request(g.app).get(`${v1}/alerts`).set(auth)).headers['x-ratelimit-remaining']).toBe('1');
    await request(g.app).get(`${v1}/alerts`).set(auth);
    expect((await request(g.app).get(`${v1}/alerts`).set(auth)).status).toBe(429);
    expect(g.limits.health.failures).toBe(0);
  });
});

describe('Redis outage', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis.stop();
  });

  /** Requests until one carries limit headers again: Redis is back and reconnected. */
  async function untilLimited(g: TestGateway, auth: Record<string, string>): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const res = await request(g.app).get(`${v1}/alerts`).set(auth);
      if (res.headers['x-ratelimit-remaining'] !== undefined) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('limiting did not resume');
  }

  it('serves while Redis is down (one log line), and limits again once it is back', async () => {
    const g = await redisGateway({ REDIS_URL: redis.url, RATE_LIMIT_READ_PER_MINUTE: '5' });
    const { auth } = fixture();
    await untilLimited(g, auth);
    await redis.stop();
    const logged = g.logs.length;
    for (let i = 0; i < 10; i++) {
      const res = await request(g.app).get(`${v1}/alerts`).set(auth);
      expect(res.status).toBe(200);
      expect(res.headers['x-ratelimit-remaining']).toBeUndefined();
    }
    expect(g.limits.health.down).toBe(true);
    expect(g.limits.health.failures).toBeGreaterThanOrEqual(1);
    expect(g.limits.health.failures + g.limits.health.skipped).toBeGreaterThanOrEqual(10);
    expect(g.logs.slice(logged).filter((l) => l.includes('rate-limit store unavailable'))).toHaveLength(1);
    const health = await request(g.app).get('/healthz');
    expect(health.body.rateLimitStore).toMatchObject({ kind: 'redis', down: true });

    await redis.start(); // empty, scripts gone: as after a crash
    const fresh = fixture();
    await untilLimited(g, fresh.auth);
    let status = 200;
    for (let i = 0; i < 5 && status === 200; i++) status = (await request(g.app).get(`${v1}/alerts`).set(fresh.auth)).status;
    expect(status).toBe(429);
    expect(g.limits.health.down).toBe(false);
    expect(g.logs.slice(logged).filter((l) => l.includes('rate-limit store available again'))).toHaveLength(1);
  });

  it('stays fast while Redis hangs (fail open): p99 under 50 ms, and limits again once it answers', async () => {
    const g = await redisGateway({ REDIS_URL: redis.url, RATE_LIMIT_READ_PER_MINUTE: '1000' });
    const { auth } = fixture();
    await untilLimited(g, auth);
    redis.freeze();
    const took: number[] = [];
    try {
      for (let i = 0; i < 200; i++) {
        const started = performance.now();
        expect((await request(g.app).get(`${v1}/alerts`).set(auth)).status).toBe(200);
        took.push(performance.now() - started);
        await new Promise((r) => setTimeout(r, 10)); // spread over seconds, across the background probes
      }
    } finally {
      redis.thaw();
    }
    took.sort((a, b) => a - b);
    expect(took[Math.ceil(took.length * 0.99) - 1]).toBeLessThan(50);
    await untilLimited(g, auth);
    expect(g.limits.health.down).toBe(false);
  }, 60_000);

  it('refuses with 503 while Redis is down when set to fail closed', async () => {
    const g = await redisGateway({ REDIS_URL: redis.url, RATE_LIMIT_ON_STORE_ERROR: 'closed' });
    const { auth } = fixture();
    await untilLimited(g, auth);
    await redis.stop();
    try {
      const res = await request(g.app).get(`${v1}/alerts`).set(auth);
      expect(res.status).toBe(503);
      expect(typeof res.body.error).toBe('string');
    } finally {
      await redis.start();
    }
  });
});
