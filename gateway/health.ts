// The gateway's health endpoints, outside the route table: no token, no rate limit and no request
// log line (probes come every few seconds). nginx does not expose them to the internet.
// /healthz: the process serves. /readyz: it can serve the API: a tracker answers (any one of
// TRACKER_URL's: the others are passed over while down), and the rate-limit store is up, or its outage is served anyway (RATE_LIMIT_ON_STORE_ERROR=open).
import http from 'node:http';
import type { RequestHandler } from 'express';
import { errorBody } from '../shared/errors.js';
import type { RateLimits } from './limits.js';
import type { RedisClient } from './redis.js';
import type { Upstream, Upstreams } from './upstreams.js';

export interface HealthOptions {
  limits: RateLimits;
  redis?: RedisClient;
  onStoreError: 'open' | 'closed';
  upstreams: Upstreams;
  agent: http.Agent;
}

/** A probe that waits longer than this has failed anyway (Kubernetes' default probe timeout is 1 s). */
const CHECK_TIMEOUT_MS = 1000;

function trackerAnswers(upstream: Upstream, agent: http.Agent): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get({ hostname: upstream.hostname, port: upstream.port, path: '/healthz', agent, timeout: CHECK_TIMEOUT_MS }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

async function storeState(redis: RedisClient | undefined): Promise<'memory' | 'ok' | 'down'> {
  if (!redis) return 'memory';
  try {
    await redis.ping();
    return 'ok';
  } catch {
    return 'down';
  }
}

export function healthChecks(opts: HealthOptions): { healthz: RequestHandler; readyz: RequestHandler } {
  const healthz: RequestHandler = (_req, res) => {
    const { down, failures } = opts.limits.health;
    res.set('Cache-Control', 'no-store').json({ status: 'ok', rateLimitStore: { kind: opts.redis ? 'redis' : 'memory', down, failures } });
  };
  const readyz: RequestHandler = async (_req, res) => {
    const [trackers, rateLimitStore] = await Promise.all([Promise.all(opts.upstreams.list.map((u) => trackerAnswers(u, opts.agent))), storeState(opts.redis)]);
    const tracker = trackers.includes(true);
    const checks = { tracker: tracker ? 'ok' : 'down', rateLimitStore };
    const ready = tracker && (rateLimitStore !== 'down' || opts.onStoreError === 'open');
    res.set('Cache-Control', 'no-store');
    if (ready) res.json({ status: 'ready', checks });
    else res.status(503).json({ ...errorBody('unavailable', 'not ready'), checks });
  };
  return { healthz, readyz };
}
