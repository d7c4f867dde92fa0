// The Redis connection behind the shared rate limits, set up to fail fast while Redis is away
// (no queueing of commands, a short command timeout) and to reconnect by itself. REDIS_MODE picks the
// setup: one server, a Redis Cluster (REDIS_URL lists seed nodes; ioredis follows MOVED and
// failovers) or Sentinel (REDIS_URL lists sentinels, REDIS_SENTINEL_NAME names the master set).
import { createHash } from 'node:crypto';
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { ConfigError } from '../shared/config.js';

export type RedisClient = Redis | Cluster;

export interface RedisSettings {
  REDIS_URL: string;
  REDIS_MODE: 'single' | 'cluster' | 'sentinel';
  REDIS_SENTINEL_NAME: string;
}

interface Node {
  host: string;
  port: number;
}

/** The nodes of a comma-separated REDIS_URL; credentials and TLS come from the first URL. */
function nodesOf(list: string): { nodes: Node[]; auth: RedisOptions } {
  const urls = list.split(',').map((u) => new URL(u));
  const first = urls[0]!;
  const auth: RedisOptions = {
    ...(first.username ? { username: decodeURIComponent(first.username) } : {}),
    ...(first.password ? { password: decodeURIComponent(first.password) } : {}),
    ...(first.protocol === 'rediss:' ? { tls: {} } : {}),
  };
  return { nodes: urls.map((u) => ({ host: u.hostname.replace(/^\[|\]$/g, ''), port: Number(u.port || 6379) })), auth };
}

export function connectRedis(settings: RedisSettings, commandTimeoutMs = 500): RedisClient {
  const options: RedisOptions = {
    // While disconnected a command fails at once instead of waiting in a queue: a request is
    // never held up by the limiter, and the failure is what triggers fail-open or fail-closed.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: commandTimeoutMs,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
    connectionName: 'fleet-gateway',
    // Concurrent requests' counts go out in one write: one syscall per batch, not per request.
    enableAutoPipelining: true,
  };
  const { REDIS_URL: url, REDIS_MODE: mode } = settings;
  if (mode === 'single' && url.includes(',')) throw new ConfigError('Invalid setting REDIS_URL=(hidden): a list of URLs needs REDIS_MODE=cluster or sentinel');
  let redis: RedisClient;
  if (mode === 'single') redis = new Redis(url, options);
  else {
    const { nodes, auth } = nodesOf(url);
    redis =
      mode === 'cluster'
        ? new Cluster(nodes, {
            enableOfflineQueue: false,
            enableAutoPipelining: true,
            clusterRetryStrategy: (attempt) => Math.min(attempt * 100, 1000),
            redisOptions: { ...options, ...auth },
          })
        : new Redis({
            ...options,
            ...auth,
            sentinels: nodes,
            name: settings.REDIS_SENTINEL_NAME,
            ...(auth.password ? { sentinelPassword: auth.password } : {}),
            ...(auth.username ? { sentinelUsername: auth.username } : {}),
            ...(auth.tls ? { enableTLSForSentinelMode: true } : {}),
            sentinelRetryStrategy: (attempt) => Math.min(attempt * 100, 1000),
          });
  }
  // Connection errors surface as failed commands, logged once per outage by the limits; without a
  // listener ioredis would print every reconnect attempt.
  redis.on('error', () => undefined);
  return redis;
}

/** Resolves when connected, or after timeoutMs anyway: the gateway serves (fail-open) meanwhile. */
export function redisReady(redis: RedisClient, timeoutMs: number): Promise<boolean> {
  if (redis.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => done(false), timeoutMs);
    const onReady = () => done(true);
    function done(ok: boolean) {
      clearTimeout(timer);
      redis.off('ready', onReady);
      resolve(ok);
    }
    redis.once('ready', onReady);
  });
}

type Reply = boolean | number | string | (boolean | number | string)[];

/**
 * sendCommand for rate-limit-redis that survives Redis restarts. The store loads its Lua scripts
 * once and remembers the promise: if Redis is down at that moment the rejection sticks forever,
 * and after a restart (script cache empty) EVALSHA answers NOSCRIPT. Here SCRIPT LOAD is answered
 * locally (the SHA-1 of the text is all the store needs) and NOSCRIPT falls back to EVAL, which
 * also caches the script in Redis again.
 */
export function scriptSafeCommand(redis: RedisClient): (...args: string[]) => Promise<Reply> {
  const scripts = new Map<string, string>();
  return async function sendCommand(command, ...args) {
    const name = command!.toUpperCase();
    if (name === 'SCRIPT' && args[0]?.toUpperCase() === 'LOAD' && args[1] !== undefined) {
      const sha = createHash('sha1').update(args[1]).digest('hex');
      scripts.set(sha, args[1]);
      return sha;
    }
    try {
      return (await redis.call(command!, ...args)) as Reply;
    } catch (err) {
      const script = name === 'EVALSHA' ? scripts.get(args[0]!) : undefined;
      if (!script || !(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      return (await redis.call('EVAL', script, ...args.slice(1))) as Reply;
    }
  };
}
