// Two real gateway processes on one Redis, as replicas behind a load balancer: they share the
// rate-limit counts exactly, and a revocation reaches both within a second.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { gatewaySettings } from '../helpers/gateway.js';
import { startService, stopAllServices, type Service } from '../helpers/processes.js';
import { startStandInTracker, type StandInTracker } from '../helpers/stand-in-tracker.js';

let tracker: StandInTracker;
let a: Service;
let b: Service;

function get(service: Service, path: string, token: string): Promise<Response> {
  return fetch(`http://127.0.0.1:${service.port}${path}`, { headers: { Authorization: `Bearer ${token}` } });
}

beforeAll(async () => {
  tracker = await startStandInTracker();
  const env = {
    ...gatewaySettings(tracker, { RATE_LIMIT_READ_PER_MINUTE: '60', REDIS_URL: 'redis://127.0.0.1:6379' }),
    GATEWAY_PORT: '0',
    GATEWAY_HOST: '127.0.0.1',
  };
  [a, b] = await Promise.all([startService('gateway/main.ts', env), startService('gateway/main.ts', env)]);
}, 60_000);

afterAll(async () => {
  await stopAllServices();
  await tracker.close();
});

describe('two gateway processes on one Redis', () => {
  it('announce their port in a JSON log line', () => {
    expect(a.port).toBeGreaterThan(0);
    expect(b.port).not.toBe(a.port);
    expect(a.logs.some((l) => l.includes('"gateway started"'))).toBe(true);
  });

  it('share the read bucket exactly: the 61st request is refused by either', async () => {
    const { token } = tracker.mint('acc_rep', ['read']);
    for (let i = 0; i < 60; i++) {
      const res = await get(i % 2 ? b : a, '/api/public/v1/alerts', token);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(59 - i));
      await res.arrayBuffer();
    }
    for (const replica of [a, b]) {
      const res = await get(replica, '/api/public/v1/devices', token);
      expect(res.status).toBe(429);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(((await res.json()) as { error: string }).error).toMatch(/rate limit/);
    }
  });

  it('both refuse a revoked token within one second', async () => {
    const { token, tokenId } = tracker.mint('acc_rev', ['read']);
    // Both have seen the token as active, so both hold a cached answer.
    for (const replica of [a, b]) expect((await get(replica, '/api/public/v1/devices', token)).status).toBe(200);
    tracker.revoke(tokenId);
    const revokedAt = Date.now();
    const refusedAfter = await Promise.all(
      [a, b].map(async (replica) => {
        for (;;) {
          const res = await get(replica, '/api/public/v1/devices', token);
          await res.arrayBuffer();
          if (res.status === 401) return Date.now() - revokedAt;
          if (Date.now() - revokedAt > 3000) return Infinity;
          await new Promise((r) => setTimeout(r, 25));
        }
      }),
    );
    for (const ms of refusedAfter) expect(ms).toBeLessThan(1000);
  });

  it('keep tokens out of their logs', async () => {
    const { token } = tracker.mint('acc_logs', ['read']);
    await (await get(a, '/api/public/v1/devices', token)).arrayBuffer();
    await a.waitForLog((l) => l.msg === 'request completed' && (l.req as { url?: string })?.url === '/api/public/v1/devices');
    expect(a.logs.join('\n')).not.toContain(token.split('.')[2]!);
  });

  it('stop gracefully on SIGTERM', async () => {
    await a.stop();
    expect(a.logs.some((l) => l.includes('"gateway stopping"'))).toBe(true);
  });
});
