// Rate limits: one fixed one-minute window per bucket of the route table, counted per token for
// token routes, per client address for requests without a valid token, for the docs and for the
// dashboard, and per webhook id for inbound webhooks (after a per-address count of refused inbound
// calls; a refused call is counted only there). Counts live in Redis when given (shared by every replica).
import type { RequestHandler, Request, Response } from 'express';
import { ipKeyGenerator, MemoryStore, type Options, type Store } from 'express-rate-limit';
import { RedisStore } from 'rate-limit-redis';
import { ApiError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { callerOf } from './auth.js';
import { scriptSafeCommand, type RedisClient } from './redis.js';
import { matchOf, type Bucket } from './routes.js';
import { GuardedStore, StoreFailure, StoreHealth } from './store-health.js';

/**
 * `anonymous`: token routes called without a valid token, counted per address.
 * `inboundRefused`: inbound calls the tracker refused as unauthorised (unknown webhook id or wrong
 * secret), counted per address: a flood of guessed ids is stopped at the door, while integrations
 * sharing an egress address (automation platforms, NAT) are never limited for their valid calls.
 */
export type LimitName = Bucket | 'anonymous' | 'inboundRefused';

export interface RateLimitOptions {
  perMinute: Record<LimitName, number>;
  /** Shared counts; the in-memory store when absent. */
  redis?: RedisClient;
  prefix: string;
  onStoreError: 'open' | 'closed';
  logger: Logger;
}

export interface RateLimits {
  middleware: RequestHandler;
  health: StoreHealth;
  /** Requests refused with 429 since start, by limit: read by the metrics at scrape time. */
  rejected: Map<LimitName, number>;
  close(): Promise<void>;
}

const WINDOW_MS = 60_000;
const UNAVAILABLE = new ApiError('unavailable', 'rate limiting is unavailable; try again shortly');

const byAddress = (req: Request) => ipKeyGenerator(req.ip ?? 'unknown');
const byToken = (_req: Request, res: Response) => callerOf(res)!.tokenId;
const byRouteKey = (_req: Request, res: Response) => {
  const { route, params } = matchOf(res);
  return params[route.key!]!;
};

const KEYS: Record<LimitName, (req: Request, res: Response) => string> = {
  read: byToken,
  write: byToken,
  commands: byToken,
  anonymous: byAddress,
  docs: byAddress,
  inbound: byRouteKey,
  inboundRefused: byAddress,
  dashboard: byAddress,
};

/**
 * The key in braces: Redis Cluster places a key by its `{…}` part, so the one count of a token (or
 * address, or webhook) is on one node and its Lua increment stays atomic there. Harmless on one server.
 */
const hashTagged = (key: (req: Request, res: Response) => string) => (req: Request, res: Response) => `{${key(req, res)}}`;

const refused = (res: Response) => res.statusCode === 401;

/**
 * Limits that keep only some answers in their count; every other answer gives its hit back once it
 * is out. `inboundRefused` keeps only refused calls. `inbound` (a webhook's count) keeps only the
 * calls its secret let in, so wrong-secret calls from anywhere cannot use up the budget of the
 * webhook's real sender; an answer cut short is given back too.
 */
type GiveBack = 'unlessRefused' | 'ifRefusedOrCut';
const GIVES_BACK: Partial<Record<LimitName, GiveBack>> = { inboundRefused: 'unlessRefused', inbound: 'ifRefusedOrCut' };

function giveBackWhen(rule: GiveBack, store: Store, key: string, res: Response): void {
  let given = false;
  const giveBack = () => {
    if (given) return;
    given = true;
    // A failed call is counted by the guarded store; the hit then stays, as the store cannot be told.
    void Promise.resolve(store.decrement(key)).catch(() => undefined);
  };
  res.once('finish', () => {
    if (refused(res) === (rule === 'ifRefusedOrCut')) giveBack();
  });
  if (rule === 'ifRefusedOrCut') res.once('close', () => !res.writableEnded && giveBack());
}

interface Limiter {
  store: Store;
  limit: number;
  keyOf: (req: Request, res: Response) => string;
  givesBack?: GiveBack;
  writeHeaders: ReturnType<typeof headerWriter>;
}

type Info = { remaining: number; resetTime?: Date };

// Whole seconds, at least 1: a client told "0" would retry at once into the same window.
function retryAfter(info: Info): string {
  const reset = info.resetTime?.getTime() ?? Date.now() + WINDOW_MS;
  return String(Math.max(1, Math.ceil((reset - Date.now()) / 1000)));
}

/** The limit headers; the policy text is built once per bucket. */
function headerWriter(name: LimitName, limit: number) {
  const limitText = String(limit);
  const policy = `"${name}"; q=${limit}; w=${WINDOW_MS / 1000}`;
  return function writeLimitHeaders(res: Response, info: Info) {
    const resetAt = info.resetTime?.getTime() ?? Date.now() + WINDOW_MS;
    res.setHeader('X-RateLimit-Limit', limitText);
    res.setHeader('X-RateLimit-Remaining', String(info.remaining));
    res.setHeader('X-RateLimit-Reset', String(Math.ceil(resetAt / 1000)));
    res.setHeader('RateLimit', `"${name}"; r=${info.remaining}; t=${Math.max(0, Math.ceil((resetAt - Date.now()) / 1000))}`);
    res.setHeader('RateLimit-Policy', policy);
  };
}

export function rateLimits(opts: RateLimitOptions): RateLimits {
  for (const name of Object.keys(KEYS) as LimitName[]) {
    const n = opts.perMinute[name];
    if (!Number.isInteger(n) || n < 1) throw new Error(`rateLimits: perMinute.${name} must be a positive whole number`);
  }
  if (!/^[A-Za-z0-9:._-]+$/.test(opts.prefix)) throw new Error('rateLimits: prefix must be plain text');
  if (opts.onStoreError !== 'open' && opts.onStoreError !== 'closed') throw new Error('rateLimits: onStoreError must be open or closed');

  const redis = opts.redis;
  const health = new StoreHealth(opts.logger, opts.onStoreError, redis && (() => redis.ping()));
  const rejected = new Map<LimitName, number>((Object.keys(KEYS) as LimitName[]).map((name) => [name, 0]));
  const stores: Store[] = [];
  const sendCommand = opts.redis ? scriptSafeCommand(opts.redis) : null;

  function store(name: LimitName): Store {
    const s = sendCommand
      ? new GuardedStore(new RedisStore({ sendCommand, prefix: `${opts.prefix}${name}:` }), health)
      : new MemoryStore();
    stores.push(s);
    return s;
  }

  const limiters = Object.fromEntries(
    (Object.keys(KEYS) as LimitName[]).map((name) => {
      const s = store(name);
      s.init?.({ windowMs: WINDOW_MS } as Options);
      const limit = opts.perMinute[name];
      return [name, { store: s, limit, keyOf: hashTagged(KEYS[name]), givesBack: GIVES_BACK[name], writeHeaders: headerWriter(name, limit) }];
    }),
  ) as Record<LimitName, Limiter>;

  /**
   * Counts the request against one limit: a single store call (one EVALSHA on Redis), then the
   * headers, then the 429 past the limit. The count is given back once the answer is out when the
   * limit counts only some answers (refused or authentic inbound calls).
   */
  function count(name: LimitName, req: Request, res: Response, next: (err?: unknown) => void) {
    const limiter = limiters[name];
    const key = limiter.keyOf(req, res);
    Promise.resolve(limiter.store.increment(key)).then(
      ({ totalHits, resetTime }) => {
        const info: Info = { remaining: Math.max(limiter.limit - totalHits, 0), resetTime };
        limiter.writeHeaders(res, info);
        if (limiter.givesBack) giveBackWhen(limiter.givesBack, limiter.store, key, res);
        if (totalHits <= limiter.limit) return next();
        rejected.set(name, rejected.get(name)! + 1);
        const seconds = retryAfter(info);
        next(new ApiError('rate_limited', `rate limit exceeded; retry in ${seconds} s`, { 'Retry-After': seconds }));
      },
      (err: unknown) => next(!(err instanceof StoreFailure) ? err : opts.onStoreError === 'open' ? undefined : UNAVAILABLE),
    );
  }

  function middleware(req: Request, res: Response, next: (err?: unknown) => void) {
    const route = matchOf(res).route;
    // An address past its refused-call count is turned away before it can use up a webhook's count.
    if (route.bucket === 'inbound') return count('inboundRefused', req, res, (err) => (err ? next(err) : count('inbound', req, res, next)));
    count(route.scope && !callerOf(res) ? 'anonymous' : route.bucket, req, res, next);
  }

  return {
    middleware: Object.defineProperty(middleware, 'name', { value: 'rateLimits' }),
    health,
    rejected,
    async close() {
      await Promise.all(stores.map((s) => s.shutdown?.()));
    },
  };
}
