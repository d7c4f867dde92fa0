// One real gateway process in front of two real tracker processes on one PostgreSQL database
// (TRACKER_URL names both): requests are spread over both; while one is killed (-9) every request
// keeps being answered by the other, never a 502, and the gateway's metrics name the dead one; only
// once both are gone does the client get 502.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually } from '../helpers/device-client.js';
import { scrape, sample } from '../helpers/metrics.js';
import { startService, stopAllServices, type Service } from '../helpers/processes.js';
import { SseClient } from '../helpers/sse-client.js';
import { createStack, type Stack } from '../helpers/stack.js';

const V1 = '/api/public/v1';
let stack: Stack;
let trackers: Service[];
let gateway: Service;
let metricsPort: number;
let token: string;

const served = (tracker: Service, path: string) => tracker.logs.filter((l) => l.includes('"request completed"') && l.includes(`"url":"${path}"`)).length;
const get = (path: string) => fetch(`http://127.0.0.1:${gateway.port}${path}`, { headers: { authorization: `Bearer ${token}` } });
const label = (t: Service) => `127.0.0.1:${t.port}`;

beforeAll(async () => {
  stack = await createStack();
  trackers = [await stack.startTracker(), await stack.startTracker()];
  gateway = await startService('gateway/main.ts', {
    ...stack.gatewayEnv(trackers[0]!.port),
    TRACKER_URL: trackers.map((t) => `http://127.0.0.1:${t.port}`).join(','),
    RATE_LIMIT_READ_PER_MINUTE: '100000',
    RATE_LIMIT_WRITE_PER_MINUTE: '100000',
  });
  metricsPort = (await gateway.waitForLog((l) => l.msg === 'gateway started')).metricsPort as number;
  token = await stack.token(await stack.account('Two trackers'), 'read,write');
}, 120_000);

afterAll(async () => {
  await stopAllServices();
  await stack.close();
});

describe('a gateway in front of two trackers', () => {
  it('spreads requests over both, and reports both up', async () => {
    for (let i = 0; i < 20; i++) {
      const res = await get(`${V1}/devices`);
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    }
    // Each tracker's request log line is written after its answer has gone: wait for the last ones.
    const counts = () => Promise.resolve(trackers.map((t) => served(t, `${V1}/devices`)));
    const [a, b] = await eventually(counts, ([x, y]) => x! + y! >= 20);
    expect(a! + b!).toBe(20);
    expect(Math.min(a!, b!)).toBeGreaterThanOrEqual(5);
    const metrics = await scrape(metricsPort);
    for (const t of trackers) expect(sample(metrics, 'fleet_upstream_up', { upstream: label(t) })).toBe(1);
  });

  it('keeps answering, never 502, while one tracker is killed; streams open on the live one', async () => {
    const statuses: number[] = [];
    let stop = false;
    // Four clients in a loop throughout the kill: requests in flight on the killed tracker are tried again.
    const clients = Array.from({ length: 4 }, async () => {
      while (!stop) {
        const res = await get(`${V1}/alerts`);
        statuses.push(res.status);
        await res.arrayBuffer();
      }
    });
    await new Promise((r) => setTimeout(r, 300));
    const [dead, live] = trackers as [Service, Service];
    process.kill(dead.pid, 'SIGKILL');
    await dead.exited;
    await new Promise((r) => setTimeout(r, 700));
    stop = true;
    await Promise.all(clients);
    expect(statuses.length).toBeGreaterThan(10);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);

    // A write whose connection is refused never reached the dead tracker, so it goes to the live one
    // (which finds the empty body invalid: the answer is the tracker's, not a 502).
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`http://127.0.0.1:${gateway.port}${V1}/geofences`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: '{}',
      });
      expect(res.status).toBe(400);
    }
    const stream = await SseClient.open(`http://127.0.0.1:${gateway.port}${V1}/stream`, token);
    expect(stream.status).toBe(200);
    stream.close();

    const metrics = await scrape(metricsPort);
    expect(sample(metrics, 'fleet_upstream_up', { upstream: label(dead) })).toBe(0);
    expect(sample(metrics, 'fleet_upstream_up', { upstream: label(live) })).toBe(1);
    expect(sample(metrics, 'fleet_upstream_failures_total', { upstream: label(dead) })).toBeGreaterThanOrEqual(1);
    expect(gateway.logs.some((l) => l.includes('tracker unavailable; trying another') && l.includes(label(dead)))).toBe(true);
  }, 30_000);

  it('answers 502 once neither tracker answers', async () => {
    process.kill(trackers[1]!.pid, 'SIGKILL');
    await trackers[1]!.exited;
    for (const path of [`${V1}/devices`, `${V1}/stream`]) {
      const res = await get(path);
      expect(res.status).toBe(502);
      expect(((await res.json()) as { error: string }).error).toBe('tracking backend unavailable');
    }
    const ready = await fetch(`http://127.0.0.1:${gateway.port}/readyz`);
    expect(ready.status).toBe(503);
  });
});
