// The gateway's Prometheus metrics: requests by route template and status with their duration,
// rate-limit rejections by bucket, failed or skipped calls to the rate-limit store (Redis), whether
// that store is connected, and each tracker's state as the gateway sees it (up, or passed over after
// a failure) with its failures.
import { Gauge, type Histogram, type Registry } from 'prom-client';
import { counterFrom, requestHistogram, serviceRegistry, type RequestLabels } from '../shared/metrics.js';
import type { RateLimits } from './limits.js';
import type { Upstreams } from './upstreams.js';

export interface GatewayMetrics {
  registry: Registry;
  requests: Histogram<RequestLabels>;
}

/** `redis`: the rate-limit store's client (ioredis, single or cluster), absent when counts are kept in memory. */
export function gatewayMetrics(limits: RateLimits, upstreams: Upstreams, redis?: { status: string }): GatewayMetrics {
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
  new Gauge({
    name: 'fleet_upstream_up',
    help: 'Whether the gateway sends requests to this tracker (1), or passes it over after a refused, reset or timed-out request (0)',
    labelNames: ['upstream'],
    registers: [registry],
    collect() {
      const now = Date.now();
      for (const u of upstreams.list) this.set({ upstream: u.label }, u.downUntil > now ? 0 : 1);
    },
  });
  counterFrom(
    registry,
    { name: 'fleet_upstream_failures_total', help: 'Requests to this tracker that were refused, reset or timed out (tried on another tracker when one is live)', label: 'upstream' },
    () => upstreams.list.map((u) => [u.label, u.failures] as [string, number]),
  );
  return { registry, requests: requestHistogram(registry) };
}
