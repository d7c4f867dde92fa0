// The gateway's Prometheus metrics: requests by route template and status with their duration,
// rate-limit rejections by bucket, failed or skipped calls to the rate-limit store (Redis), and
// whether that store is connected.
import { Gauge, type Histogram, type Registry } from 'prom-client';
import { counterFrom, requestHistogram, serviceRegistry, type RequestLabels } from '../shared/metrics.js';
import type { RateLimits } from './limits.js';

export interface GatewayMetrics {
  registry: Registry;
  requests: Histogram<RequestLabels>;
}

/** `redis`: the rate-limit store's client (ioredis, single or cluster), absent when counts are kept in memory. */
export function gatewayMetrics(limits: RateLimits, redis?: { status: string }): GatewayMetrics {
  const registry = serviceRegistry('gateway');
  if (redis) {
    new Gauge({
      name: 'fleet_redis_up',
      help: 'Whether the connection to the rate-limit store (Redis) is ready: 1, or 0 while it is down or reconnecting',
      registers: [registry],
      collect() {
        this.set(redis.status === 'ready' ? 1 : 0);
      },
    });
  }
  counterFrom(registry, { name: 'fleet_rate_limit_rejections_total', help: 'Requests refused with 429, by rate-limit bucket', label: 'bucket' }, () => limits.rejected);
  counterFrom(
    registry,
    { name: 'fleet_redis_errors_total', help: 'Rate-limit store calls to Redis that failed (served or refused as RATE_LIMIT_ON_STORE_ERROR says)' },
    () => limits.health.failures,
  );
  counterFrom(
    registry,
    { name: 'fleet_rate_limit_store_skipped_total', help: 'Rate-limit checks answered without asking Redis, after a recent failure (served or refused as RATE_LIMIT_ON_STORE_ERROR says)' },
    () => limits.health.skipped,
  );
  return { registry, requests: requestHistogram(registry) };
}
