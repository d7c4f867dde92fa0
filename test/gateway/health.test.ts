// The gateway's probes: /healthz (alive) and /readyz (tracker answers; Redis up, or its outage
// served when failing open), both without a token, outside the rate limits and the request log.
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { redisReady } from '../../gateway/redis.js';
import { eventually } from '../helpers/device-client.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { sample } from '../helpers/metrics.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { startStandInTracker, type StandInTracker } from '../helpers/stand-in-tracker.js';

let tracker: StandInTracker;
let redis: RedisServer;
const open: TestGateway[] = [];

async function gateway(env: Record<string, string> = {}): Promise<TestGateway> {
  const g = startTestGateway(tracker, env);
  open.push(g);
  if (g.redis && !(await redisReady(g.redis, 5000))) throw new Error('Redis did not answer');
  return g;
}

beforeAll(async () => {
  [tracker, redis] = await Promise.all([startStandInTracker(), startRedisServer()]);
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((g) => g.close()));
});
afterAll(async () => {
  await Promise.all([tracker.close(), redis.stop()]);
});

describe('/readyz', () => {
  it('is ready when the tracker and Redis answer; no token needed, nothing counted or logged', async () => {
    const g = await gateway({ REDIS_URL: redis.url, RATE_LIMIT_ANONYMOUS_PER_MINUTE: '1', RATE_LIMIT_DOCS_PER_MINUTE: '1' });
    for (let i = 0; i < 3; i++) {
      const res = await request(g.app).get('/readyz');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'ready', checks: { tracker: 'ok', rateLimitStore: 'ok' } });
      expect(res.headers['x-ratelimit-remaining']).toBeUndefined();
    }
    expect((await request(g.app).get('/healthz')).status).toBe(200);
    expect(g.logs.filter((l) => l.includes('/readyz') || l.includes('/healthz'))).toEqual([]);
  });

  it('reports the in-memory store when there is no Redis', async () => {
    const res = await request((await gateway()).app).get('/readyz');
    expect(res.body.checks).toEqual({ tracker: 'ok', rateLimitStore: 'memory' });
  });

  it('stays ready with Redis down while failing open, and is not ready when failing closed; fleet_redis_up says which', async () => {
    const openG = await gateway({ REDIS_URL: redis.url });
    const closedG = await gateway({ REDIS_URL: redis.url, RATE_LIMIT_ON_STORE_ERROR: 'closed' });
    const redisUp = async () => sample(await openG.metrics.registry.metrics(), 'fleet_redis_up');
    expect(await redisUp()).toBe(1);
    await redis.stop();
    try {
      // The client hears of the lost connection when its socket closes.
      expect(await eventually(redisUp, (up) => up === 0)).toBe(0);
      const served = await request(openG.app).get('/readyz');
      expect(served.status).toBe(200);
      expect(served.body.checks).toEqual({ tracker: 'ok', rateLimitStore: 'down' });
      const refused = await request(closedG.app).get('/readyz');
      expect(refused.status).toBe(503);
      expect(refused.body).toEqual({ error: 'not ready', code: 'unavailable', checks: { tracker: 'ok', rateLimitStore: 'down' } });
    } finally {
      await redis.start();
    }
    expect(await redisReady(closedG.redis!, 5000)).toBe(true);
    expect((await request(closedG.app).get('/readyz')).status).toBe(200);
    expect(await redisReady(openG.redis!, 5000)).toBe(true);
    expect(await redisUp()).toBe(1);
  });

  it('is not ready while the tracker does not answer, though alive', async () => {
    const standIn = await startStandInTracker();
    const g = startTestGateway(standIn);
    open.push(g);
    expect((await request(g.app).get('/readyz')).status).toBe(200);
    await standIn.close();
    const down = await request(g.app).get('/readyz');
    expect(down.status).toBe(503);
    expect(down.body.checks.tracker).toBe('down');
    expect((await request(g.app).get('/healthz')).status).toBe(200); // alive all the same
  });
});
