// Real tracker processes on one PostgreSQL database: a command queued through one reaches a
// device connected to another within a second; periodic work runs in one of them per period; and
// kill -9 loses no position a device was ACKed.
import { describe, expect, test, beforeAll, afterAll } from '@jest/globals';
import { INTERNAL_HEADERS } from '../../shared/internal.js';
import { gt06Login, gt06Position } from '../../tracker/simulator/frames/gt06.js';
import { DeviceClient } from '../helpers/device-client.js';
import { sample, scrape } from '../helpers/metrics.js';
import { stopAllServices } from '../helpers/processes.js';
import { createStack, type Stack } from '../helpers/stack.js';

let stack: Stack;
let account: string;

async function startTracker() {
  const s = await stack.startTracker();
  return Object.assign(s, { devicePort: s.devicePorts.device! });
}

beforeAll(async () => {
  stack = await createStack();
  account = await stack.account('Fleet');
});
afterAll(async () => {
  await stopAllServices();
  await stack.close();
});

const addDevice = (imei: string) => stack.device(account, imei);

describe('several tracker processes', () => {
  test('a locate queued through one tracker reaches the device on the other within a second', async () => {
    const deviceId = await addDevice('359633100000401');
    const [a, b] = await Promise.all([startTracker(), startTracker()]);
    const d = await DeviceClient.open(b.devicePort);
    d.send(gt06Login('359633100000401', 1));
    await d.read(10);
    const queuedAt = Date.now();
    const res = await fetch(`http://127.0.0.1:${a.port}/api/public/v1/devices/${deviceId}/locate`, {
      method: 'POST',
      headers: { [INTERNAL_HEADERS.secret]: stack.trackerEnv.GATEWAY_SECRET!, [INTERNAL_HEADERS.accountId]: account, [INTERNAL_HEADERS.tokenId]: 'tok_x', [INTERNAL_HEADERS.scopes]: 'commands' },
    });
    expect(res.status).toBe(200);
    const head = await d.read(4, 1000);
    expect(head[3]).toBe(0x80);
    expect(Date.now() - queuedAt).toBeLessThan(1000);
    d.close();
    await Promise.all([a.stop(), b.stop()]);
  });

  test('periodic work runs once per period across two trackers, in whichever claims it', async () => {
    const trackers = await Promise.all([startTracker(), startTracker()]);
    const runs = async (job: string) => {
      const texts = await Promise.all(trackers.map((t) => scrape(t.metricsPort)));
      return texts.map((text) => sample(text, 'fleet_scheduled_job_runs_total', { job })!);
    };
    const started = Date.now();
    const [expiryBefore, sweepBefore] = [await runs('command-expiry'), await runs('offline-sweep')];
    await new Promise((r) => setTimeout(r, 8000));
    const [expiryAfter, sweepAfter] = [await runs('command-expiry'), await runs('offline-sweep')];
    const seconds = (Date.now() - started) / 1000;
    // Both jobs tick every second in each tracker: alone, each tracker would run them ~8 times.
    for (const [before, after] of [[expiryBefore, expiryAfter], [sweepBefore, sweepAfter]] as const) {
      const total = after[0]! - before[0]! + after[1]! - before[1]!;
      expect(total).toBeGreaterThanOrEqual(Math.floor(seconds) - 2);
      expect(total).toBeLessThanOrEqual(Math.ceil(seconds) + 1);
    }
    await Promise.all(trackers.map((t) => t.stop()));
  }, 120_000);

  test('kill -9 loses no position the device was told was stored', async () => {
    const deviceId = await addDevice('359633100000402');
    const tracker = await startTracker();
    const d = await DeviceClient.open(tracker.devicePort);
    d.send(gt06Login('359633100000402', 1));
    await d.read(10);
    let acked = 0;
    const base = Date.UTC(2026, 10, 21, 10, 0, 0);
    // Frames are pipelined: the tracker batches them; each ACK means "durable".
    for (let i = 0; i < 200; i++) d.send(gt06Position({ time: new Date(base + i * 1000), lat: 52.5, lng: 13.4, speed: 10, heading: 0 }, {}, i + 2));
    for (; acked < 120; acked++) await d.read(10, 5000);
    process.kill(tracker.pid, 'SIGKILL');
    await d.waitClosed();
    acked += Math.floor(d.pending().length / 10); // ACKs that arrived before the kill
    const stored = await stack.admin.db.query<{ n: number }>('SELECT count(*)::int AS n FROM positions WHERE device_id = $1', [deviceId]);
    expect(stored[0]!.n).toBeGreaterThanOrEqual(acked);
  });
});
