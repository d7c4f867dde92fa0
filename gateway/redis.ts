// The Redis connection behind the shared rate limits, set up to fail fast while Redis is away
// (no queueing of commands, a short command timeout) and to reconnect by itself.
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';

export function connectRedis(url: string, commandTimeoutMs = 500): Redis {
  const redis = new Redis(url, {
    // While disconnected a command fails at once instead of waiting in a queue: a request is
    // never held up by the limiter, and the failure is what triggers fail-open or fail-closed.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: commandTimeoutMs,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
    connectionName: 'fleet-gateway',
  });
  // Connection errors surface as failed commands, logged once per outage by the limits; without a
  // listener ioredis would print every reconnect attempt.
  redis.on('error', () => undefined);
  return redis;
}

/** Resolves when connected, or after timeoutMs anyway: the gateway serves (fail-open) meanwhile. */
export function redisReady(redis: Redis, timeoutMs: number): Promise<boolean> {
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
export function scriptSafeCommand(redis: Redis): (...args: string[]) => Promise<Reply> {
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
