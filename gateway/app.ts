// The gateway app: route table → authentication → rate limits → scope → stream slots → body cap → proxy, with
// every error answered as JSON from the shared catalogue.
import type { KeyObject } from 'node:crypto';
import express, { type RequestHandler } from 'express';
import { trackerUrls, type GatewayConfig } from '../shared/config.js';
import { errorHandler, noStore, requestLogging } from '../shared/http.js';
import type { Logger } from '../shared/logger.js';
import { requestMetrics } from '../shared/metrics.js';
import { authenticate, requireCaller } from './auth.js';
import { bodyLimit } from './body-limit.js';
import { healthChecks } from './health.js';
import { rateLimits, type RateLimits } from './limits.js';
import { gatewayMetrics, type GatewayMetrics } from './metrics.js';
import { forward, upstreamAgent } from './proxy.js';
import { connectRedis, type RedisClient } from './redis.js';
import { dispatch, matchOf, routeLabel, ROUTES, routeTable, type RouteSpec } from './routes.js';
import { requireScope } from './scopes.js';
import { streamSlots, type StreamSlots } from './stream-slots.js';
import { tokenStatus } from './token-status.js';
import { trackerUpstreams } from './upstreams.js';

export interface GatewayOptions {
  config: GatewayConfig;
  logger: Logger;
  publicKey: KeyObject;
  gatewaySecret: string;
  routes?: readonly RouteSpec[];
}

export interface Gateway {
  app: express.Express;
  /** Present when REDIS_URL is set. */
  redis?: RedisClient;
  limits: RateLimits;
  /** Live-feed streams open per token. */
  streams: StreamSlots;
  /** Served on GATEWAY_METRICS_PORT by the process (gateway/main.ts). */
  metrics: GatewayMetrics;
  close(): Promise<void>;
}

/**
 * Runs handlers in order, as a router would, without a router's per-layer bookkeeping: the
 * gateway's own chain has no paths to match, only steps.
 */
function series(...handlers: RequestHandler[]): RequestHandler {
  return function series(req, res, next) {
    let i = 0;
    const step = (err?: unknown): void => {
      const handler = handlers[i++];
      if (err !== undefined || !handler) return next(err);
      try {
        const result: unknown = handler(req, res, step);
        if (result instanceof Promise) result.catch(step);
      } catch (thrown) {
        step(thrown);
      }
    };
    step();
  };
}

export function createGateway(opts: GatewayOptions): Gateway {
  const { config, logger } = opts;
  const agent = upstreamAgent();
  const upstreams = trackerUpstreams(trackerUrls(config.TRACKER_URL));
  const redis = config.REDIS_URL ? connectRedis({ ...config, REDIS_URL: config.REDIS_URL }) : undefined;
  const limits = rateLimits({
    perMinute: {
      read: config.RATE_LIMIT_READ_PER_MINUTE,
      write: config.RATE_LIMIT_WRITE_PER_MINUTE,
      commands: config.RATE_LIMIT_COMMANDS_PER_MINUTE,
      anonymous: config.RATE_LIMIT_ANONYMOUS_PER_MINUTE,
      docs: config.RATE_LIMIT_DOCS_PER_MINUTE,
      inbound: config.RATE_LIMIT_INBOUND_PER_MINUTE,
      inboundRefused: config.RATE_LIMIT_INBOUND_REFUSED_PER_MINUTE,
      dashboard: config.RATE_LIMIT_DASHBOARD_PER_MINUTE,
    },
    redis,
    prefix: config.RATE_LIMIT_PREFIX,
    onStoreError: config.RATE_LIMIT_ON_STORE_ERROR,
    logger,
  });
  const streams = streamSlots({ perToken: config.STREAM_MAX_PER_TOKEN, redis, prefix: config.RATE_LIMIT_PREFIX, logger });
  const metrics = gatewayMetrics(limits, upstreams, redis);
  const isActive = tokenStatus({
    upstreams,
    gatewaySecret: opts.gatewaySecret,
    agent,
    cacheMs: config.TOKEN_CACHE_MS,
    timeoutMs: config.UPSTREAM_TIMEOUT_MS,
    maxEntries: config.TOKEN_CACHE_SIZE,
  });

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // The exact number of proxies in front (nginx: 1): `true` would let any client pick its address.
  app.set('trust proxy', config.TRUST_PROXY_HOPS);

  // Probes: before the route table, the metrics and the request log.
  const health = healthChecks({ limits, redis, onStoreError: config.RATE_LIMIT_ON_STORE_ERROR, upstreams, agent });
  app.get('/healthz', health.healthz);
  app.get('/readyz', health.readyz);

  // Token routes: who is calling decides the bucket (token, or address for a failed attempt),
  // so limits run between finding the caller and refusing it.
  const tokenChecks = series(
    authenticate({ publicKey: opts.publicKey, isActive, cacheSize: config.TOKEN_CACHE_SIZE }),
    limits.middleware,
    requireCaller(),
    requireScope(),
    streams.middleware,
  );
  // One router layer for the whole chain, request metrics and log line included: each layer more
  // costs the router's matching and bookkeeping on every request.
  app.use(
    series(
      requestMetrics(metrics.requests, (_req, res) => routeLabel(res)),
      requestLogging(logger),
      noStore,
      dispatch(routeTable(opts.routes ?? ROUTES)),
      function checks(req, res, next) {
        if (matchOf(res).route.scope) return tokenChecks(req, res, next);
        limits.middleware(req, res, next);
      },
      bodyLimit(),
      forward({ upstreams, gatewaySecret: opts.gatewaySecret, agent, timeoutMs: config.UPSTREAM_TIMEOUT_MS, logger }),
    ),
  );
  app.use(errorHandler());

  return {
    app,
    redis,
    limits,
    streams,
    metrics,
    async close() {
      await Promise.all([limits.close(), streams.close()]);
      agent.destroy();
      // QUIT needs a live connection; otherwise stop reconnecting at once.
      if (redis?.status === 'ready') await redis.quit().catch(() => redis.disconnect());
      else redis?.disconnect();
    },
  };
}
