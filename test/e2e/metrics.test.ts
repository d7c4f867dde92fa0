// /metrics of real gateway and tracker processes after real traffic: API calls (labelled by route
// template, never by raw path), a rate-limit rejection, a Redis outage, a device reporting and
// answering a locate, a report that cannot be decoded.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { gt06CommandReply, gt06Login, gt06Position } from '../../tracker/simulator/frames/gt06.js';
import { osmandQueryString } from '../../tracker/simulator/frames/osmand.js';
import { DeviceClient, eventually } from '../helpers/device-client.js';
import { sample, scrape } from '../helpers/metrics.js';
import { startService, stopAllServices, type Service } from '../helpers/processes.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { createStack, type Stack } from '../helpers/stack.js';

let stack: Stack;
let redis: RedisServer;
let tracker: Awaited<ReturnType<Stack['startTracker']>>;
let gateway: Service;
let gatewayMetricsPort: number;
let device: DeviceClient;
let deviceId: string;
let token: string;

const fix = (i: number) => ({ time: new Date(Date.UTC(2026, 10, 21, 9, 0, i)), lat: 52.52, lng: 13.4, speed: 30, heading: 90 });
const api = (path: string, init: RequestInit = {}) => fetch(`http://127.0.0.1:${gateway.port}${path}`, { ...init, headers: { Authorization: `Bearer ${token}` } });

beforeAll(async () => {
  [stack, redis] = await Promise.all([createStack(), startRedisServer()]);
  const account = await stack.account('Fleet');
  deviceId = await stack.device(account, '359633100000801');
  await stack.device(account, '359633100000802'); // an OsmAnd phone
  token = await stack.token(account, 'read,commands');
  tracker = await stack.startTracker();
  gateway = await startService('gateway/main.ts', { ...stack.gatewayEnv(tracker.port), REDIS_URL: redis.url, RATE_LIMIT_COMMANDS_PER_MINUTE: '1' });
  gatewayMetricsPort = (await gateway.waitForLog((l) => l.msg === 'gateway started')).metricsPort as number;

  device = await DeviceClient.open(tracker.devicePorts.device!);
  device.send(gt06Login('359633100000801', 1));
  await device.read(10);
  for (let i = 0; i < 3; i++) {
    device.send(gt06Position(fix(i), {}, i + 2));
    await device.read(10);
  }
  const osmand = `http://127.0.0.1:${tracker.devicePorts.osmand}`;
  expect((await fetch(`${osmand}/?${osmandQueryString('359633100000802', fix(10))}`)).status).toBe(200);
  expect((await fetch(`${osmand}/?id=359633100000802&lat=91&lon=10`)).status).toBe(400);
}, 60_000);

afterAll(async () => {
  device?.close();
  await stopAllServices();
  await Promise.all([stack.close(), redis.stop()]);
});

describe('gateway /metrics', () => {
  test('requests by route template and status, rate-limit rejections and Redis errors', async () => {
    expect((await api('/api/public/v1/devices')).status).toBe(200);
    expect((await api(`/api/public/v1/devices/${deviceId}`)).status).toBe(200);
    expect((await api('/api/public/v1/devices/dev_unknown0000000000000')).status).toBe(404);
    expect((await api(`/api/public/v1/devices/${deviceId}/locate`, { method: 'POST' })).status).toBe(200);
    expect((await api(`/api/public/v1/devices/${deviceId}/locate`, { method: 'POST' })).status).toBe(429);
    expect((await api('/no/such/path')).status).toBe(404);

    let text = await scrape(gatewayMetricsPort);
    const count = (route: string, status: string, method = 'GET') =>
      sample(text, 'fleet_http_request_duration_seconds_count', { service: 'gateway', method, route, status });
    expect(count('/api/public/v1/devices', '200')).toBe(1);
    expect(count('/api/public/v1/devices/{id}', '200')).toBe(1);
    expect(count('/api/public/v1/devices/{id}', '404')).toBe(1);
    expect(count('/api/public/v1/devices/{id}/locate', '200', 'POST')).toBe(1);
    expect(count('/api/public/v1/devices/{id}/locate', '429', 'POST')).toBe(1);
    expect(count('unmatched', '404')).toBe(1);
    expect(text).not.toContain(deviceId); // raw paths never become labels
    expect(text).not.toContain('/no/such/path');
    expect(sample(text, 'fleet_rate_limit_rejections_total', { bucket: 'commands' })).toBe(1);
    expect(sample(text, 'fleet_rate_limit_rejections_total', { bucket: 'read' })).toBe(0);
    expect(sample(text, 'fleet_redis_errors_total')).toBe(0);
    expect(sample(text, 'process_cpu_seconds_total')).toBeGreaterThan(0);

    await redis.stop();
    expect((await api('/api/public/v1/devices')).status).toBe(200); // served: failing open
    text = await scrape(gatewayMetricsPort);
    expect(sample(text, 'fleet_redis_errors_total')).toBeGreaterThanOrEqual(1);
  });

  test('the metrics port serves nothing else', async () => {
    const res = await fetch(`http://127.0.0.1:${gatewayMetricsPort}/healthz`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'no such endpoint', code: 'not_found' });
  });
});

describe('tracker /metrics', () => {
  test('devices online by protocol, positions, decode errors, command outcomes, requests', async () => {
    // The locate above reached the device; its answer delivers the command.
    const head = await device.read(5);
    await device.read(head[2]! + 5 - 5);
    device.send(gt06CommandReply('OK', 1, 10));
    const text = await eventually(
      () => scrape(tracker.metricsPort),
      (t) => sample(t, 'fleet_commands_total', { status: 'delivered' }) === 1,
    );
    expect(sample(text, 'fleet_devices_connected', { service: 'tracker', protocol: 'gt06' })).toBe(1);
    expect(sample(text, 'fleet_devices_connected', { protocol: 'osmand' })).toBe(1);
    expect(sample(text, 'fleet_devices_connected', { protocol: 'teltonika' })).toBe(0);
    expect(sample(text, 'fleet_device_connections')).toBe(1);
    expect(sample(text, 'fleet_positions_ingested_total')).toBe(4);
    expect(sample(text, 'fleet_decode_errors_total', { protocol: 'osmand' })).toBe(1);
    expect(sample(text, 'fleet_decode_errors_total', { protocol: 'gt06' })).toBe(0);
    expect(sample(text, 'fleet_commands_total', { status: 'queued' })).toBe(1);
    expect(sample(text, 'fleet_commands_total', { status: 'sent' })).toBe(1);
    expect(sample(text, 'fleet_commands_total', { status: 'expired' })).toBe(0);
    expect(sample(text, 'fleet_http_request_duration_seconds_count', { method: 'POST', route: '/api/public/v1/devices/{id}/locate', status: '200' })).toBe(1);
    expect(text).not.toContain(deviceId);
  });

  test('the webhook delivery metrics are declared, at zero until the sender counts', async () => {
    const text = await scrape(tracker.metricsPort);
    expect(sample(text, 'fleet_webhook_deliveries_total')).toBe(0);
    for (const reason of ['status', 'timeout', 'network']) expect(sample(text, 'fleet_webhook_failures_total', { reason })).toBe(0);
    expect(sample(text, 'fleet_webhook_backlog')).toBe(0);
  });
});
