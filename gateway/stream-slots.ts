// Concurrent live-feed streams per token: a stream takes a slot when it opens and gives it back when
// it closes; with every slot of the token taken the next gets 429. Slots live in Redis when given
// (one count across every gateway replica), as a sorted set per token scored by the time each slot
// was last confirmed: the gateway holding a stream confirms it every 20 s, so the slots of a gateway
// that died free themselves within a minute.
import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import { ApiError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { callerOf } from './auth.js';
import type { RedisClient } from './redis.js';
import { matchOf } from './routes.js';

export interface StreamSlotOptions {
  perToken: number;
  /** Shared slots; this process's own when absent. */
  redis?: RedisClient;
  prefix: string;
  logger: Logger;
}

export interface StreamSlots {
  middleware: RequestHandler;
  /** Slots held by this process's open streams. */
  readonly held: number;
  close(): Promise<void>;
}

/** A slot not confirmed for this long is free. */
const SLOT_TTL_MS = 60_000;
const CONFIRM_EVERY_MS = 20_000;
/** What a refused client is told to wait: streams are long-lived, so not a minute's window. */
const RETRY_AFTER_SECONDS = '10';

// Drops the slots nobody confirmed, then takes one if fewer than the limit are held: atomic in Redis.
const TAKE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1] - ARGV[2])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;

export function streamSlots(opts: StreamSlotOptions): StreamSlots {
  if (!Number.isInteger(opts.perToken) || opts.perToken < 1) throw new Error('streamSlots: perToken must be a positive whole number');
  const { redis } = opts;
  /** Open streams here: slot id → token id. */
  const open = new Map<string, string>();
  // One key per token, in braces (a Redis Cluster places it by that part).
  const key = (tokenId: string) => `${opts.prefix}stream:{${tokenId}}`;

  /** Takes a slot for the stream (held in `open` when taken). Without Redis the count and the taking are one step. */
  async function take(tokenId: string, slot: string): Promise<boolean> {
    let taken = true;
    if (!redis) taken = [...open.values()].filter((t) => t === tokenId).length < opts.perToken;
    else {
      try {
        taken = (await redis.eval(TAKE, 1, key(tokenId), Date.now(), SLOT_TTL_MS, opts.perToken, slot)) === 1;
      } catch (err) {
        // Like the rate limits' store: a stream is not refused because the count is out of reach.
        opts.logger.warn({ err }, 'stream slots unavailable; stream allowed');
      }
    }
    if (taken) open.set(slot, tokenId);
    return taken;
  }

  function give(tokenId: string, slot: string): void {
    open.delete(slot);
    redis?.zrem(key(tokenId), slot).catch((err: unknown) => opts.logger.warn({ err }, 'stream slot not given back; it frees itself within a minute'));
  }

  const confirm = setInterval(() => {
    if (!redis || open.size === 0) return;
    const now = Date.now();
    // Separate commands, batched per node by auto-pipelining: a Redis Cluster refuses a pipeline whose keys span nodes.
    const confirmed = [...open].flatMap(([slot, tokenId]) => [redis.zadd(key(tokenId), 'XX', now, slot), redis.pexpire(key(tokenId), SLOT_TTL_MS)]);
    Promise.all(confirmed).catch((err: unknown) => opts.logger.warn({ err }, 'stream slots not confirmed'));
  }, CONFIRM_EVERY_MS).unref();

  async function middleware(...[req, res, next]: Parameters<RequestHandler>) {
    // The dashboard's streams carry a session, not a token: the tracker counts those per session.
    const caller = callerOf(res);
    if (!matchOf(res).route.stream || !caller) return next();
    const tokenId = caller.tokenId;
    const slot = randomUUID();
    if (!(await take(tokenId, slot))) return next(new ApiError('rate_limited', `at most ${opts.perToken} streams per token may be open at once; close one first`, { 'Retry-After': RETRY_AFTER_SECONDS }));
    res.on('close', () => give(tokenId, slot));
    if (req.destroyed) return give(tokenId, slot);
    next();
  }

  return {
    middleware: Object.defineProperty(middleware, 'name', { value: 'streamSlots' }) as RequestHandler,
    get held() {
      return open.size;
    },
    async close() {
      clearInterval(confirm);
    },
  };
}
