// The live feed end to end over real processes: GT06 devices on TCP → two tracker processes on one
// PostgreSQL → two gateways (sharing Redis) → SSE clients. A position arrives with its telemetry;
// filters by unit, kind and event type; Last-Event-ID resumes with what was missed; a device on
// tracker A reaches a subscriber through gateway 2 and tracker B; account B never sees account A;
// the per-token stream limit; a consumer that stops reading is cut off with a `cutoff` event.
import { afterAll, afterEach, beforeAll, describe, expect, test } from '@jest/globals';
import { gt06Alarm, gt06CommandReply, gt06Login, gt06Position } from '../../tracker/simulator/frames/gt06.js';
import { DeviceClient } from '../helpers/device-client.js';
import { freePort } from '../helpers/ports.js';
import { startService, stopAllServices } from '../helpers/processes.js';
import { SseClient, type SseEvent } from '../helpers/sse-client.js';
import { createStack, type Stack } from '../helpers/stack.js';

let stack: Stack;
let trackerA: Awaited<ReturnType<Stack['startTracker']>>;
let gateway1: string;
let gateway2: string;
let tokenA: string;
let tokenB: string;
let accountA: string;
const ids: Record<string, string> = {};
const IMEI = { a1: '359633100017001', a2: '359633100017002', a3: '359633100017003', b1: '359633100017101' } as const;
const streams: SseClient[] = [];
let minute = 0;

/** Fixes a minute apart from two days ago, so none repeats one already stored; they move little, so no filter flags them. */
const BASE = Math.floor((Date.now() - 2 * 86_400_000) / 60_000) * 60_000;
const nextFix = (lat = 52.52) => ({ time: new Date(BASE + ++minute * 60_000), lat, lng: 13.405, speed: 36, heading: 90 });

async function device(name: keyof typeof IMEI, port = trackerA.devicePorts.device!): Promise<DeviceClient> {
  const d = await DeviceClient.open(port);
  d.send(gt06Login(IMEI[name], 1));
  await d.read(10);
  return d;
}

/** Sends a position and waits for its ACK (the position is committed then). */
async function report(d: DeviceClient, lat?: number, state: Parameters<typeof gt06Position>[1] = {}): Promise<void> {
  d.send(gt06Position(nextFix(lat), state, 2));
  await d.read(10);
}

/** A latitude as sent: GT06 carries it in 1/1,800,000 of a degree. */
const latOf = (e: SseEvent) => Math.round(Number(e.data.lat) * 1e4) / 1e4;

async function open(base: string, token: string, query = '', headers: Record<string, string> = {}): Promise<SseClient> {
  const s = await SseClient.open(`${base}/api/public/v1/stream${query}`, token, headers);
  streams.push(s);
  return s;
}

beforeAll(async () => {
  stack = await createStack();
  trackerA = await stack.startTracker({ STREAM_MAX_BUFFER_BYTES: '4096' });
  const trackerB = await stack.startTracker({ STREAM_HEARTBEAT_SECONDS: '1' });
  const [port1, port2] = [await freePort(), await freePort()];
  gateway1 = `http://127.0.0.1:${port1}`;
  gateway2 = `http://127.0.0.1:${port2}`;
  const env = stack.gatewayEnv(trackerA.port);
  await Promise.all([
    startService('gateway/main.ts', { ...env, GATEWAY_PORT: String(port1) }, { timeoutMs: 60_000 }),
    // The second gateway shares the first one's Redis counts (same prefix) and forwards to tracker B.
    startService('gateway/main.ts', { ...stack.gatewayEnv(trackerB.port), RATE_LIMIT_PREFIX: env.RATE_LIMIT_PREFIX!, GATEWAY_PORT: String(port2) }, { timeoutMs: 60_000 }),
  ]);
  accountA = await stack.account('Live fleet');
  const accountB = await stack.account('Other fleet');
  for (const name of ['a1', 'a2', 'a3'] as const) ids[name] = await stack.device(accountA, IMEI[name]);
  ids.b1 = await stack.device(accountB, IMEI.b1);
  tokenA = await stack.token(accountA, 'read');
  tokenB = await stack.token(accountB, 'read');
}, 120_000);

// Each test's streams are closed after it, so they do not count against the next one's limit.
afterEach(() => {
  for (const s of streams.splice(0)) s.close();
});

afterAll(async () => {
  await stopAllServices();
  await stack?.close();
});

describe('the live feed', () => {
  test('a position reported over TCP reaches the subscriber with its telemetry, in the history shape', async () => {
    const s = await open(gateway1, tokenA);
    expect(s.status).toBe(200);
    expect(s.res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    const d = await device('a1');
    await report(d, 52.5, { ignition: true });
    await s.until(() => s.named('position').length >= 1);
    const [p] = s.named('position');
    expect(p!.id).toMatch(/^[0-9]+$/);
    expect(p!.data).toMatchObject({ deviceId: ids.a1, lat: 52.5, lng: 13.405, speed: 36, heading: 90, valid: true, timestamp: nextFixTime(0) });
    expect((p!.data.attributes as Record<string, unknown>).ignition).toBe(true);
    d.close();
    s.close();
  });

  test('filters: only the units named; an SOS as an event, kept by its type', async () => {
    const onlyA2 = await open(gateway1, tokenA, `?deviceIds=${ids.a2}`);
    const sosOnly = await open(gateway1, tokenA, '?kinds=event&eventTypes=sos');
    const [d1, d2] = [await device('a1'), await device('a2')];
    await report(d1, 52.501);
    await report(d2, 52.502);
    d2.send(gt06Alarm(nextFix(52.503), 'sos', {}, 3));
    await d2.read(10);
    await sosOnly.until(() => sosOnly.events.length >= 1).catch((err: Error) => {
      throw new Error(`${err.message} ${JSON.stringify(onlyA2.events)}`);
    });
    await onlyA2.until(() => onlyA2.named('position').length >= 1 && onlyA2.named('event').some((e) => e.data.type === 'sos'));
    expect(onlyA2.events.every((e) => e.data.deviceId === ids.a2)).toBe(true);
    expect(sosOnly.events.map((e) => [e.event, e.data.type, e.data.deviceId])).toEqual([['event', 'sos', ids.a2]]);
    // device_online of a1 and a2 were not asked for: events of other types never reach sosOnly.
    d1.close();
    d2.close();
  });

  test('a command’s status changes come as command events: queued, sent, delivered', async () => {
    const token = await stack.token(accountA, 'read,commands');
    const s = await open(gateway1, token, `?kinds=command&deviceIds=${ids.a1}`);
    const d = await device('a1');
    const res = await fetch(`${gateway1}/api/public/v1/devices/${ids.a1}/commands`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'reboot' }),
    });
    const { commandId } = (await res.json()) as { commandId: string };
    await s.until(() => s.events.some((e) => e.data.status === 'sent'));
    // The unit answers the command it got, echoing its server flag (78 78, length, 0x80, command length, flag).
    const flag = (await d.read(9, 5000)).readUInt32BE(5);
    d.send(gt06CommandReply('RESET: Success!', flag, 4));
    await s.until(() => s.events.some((e) => e.data.status === 'delivered'));
    expect(s.events.map((e) => [e.event, e.data.id, e.data.status])).toEqual([
      ['command', commandId, 'queued'],
      ['command', commandId, 'sent'],
      ['command', commandId, 'delivered'],
    ]);
    d.close();
  });

  test('bad filters are refused before the stream opens; another account’s unit is a 404', async () => {
    const unknownKind = await open(gateway1, tokenA, '?kinds=position,weather');
    expect(unknownKind.status).toBe(400);
    expect((await unknownKind.body()).error).toMatch(/kinds/);
    const otherAccounts = await open(gateway1, tokenA, `?deviceIds=${ids.b1}`);
    expect(otherAccounts.status).toBe(404);
    const badResume = await open(gateway1, tokenA, '', { 'last-event-id': 'abc' });
    expect(badResume.status).toBe(400);
  });

  test('Last-Event-ID resumes after a reconnect with exactly what was missed, in order', async () => {
    const first = await open(gateway1, tokenA, `?deviceIds=${ids.a3}`);
    const d = await device('a3');
    await report(d, 52.51);
    await first.until(() => first.named('position').length === 1);
    const seen = first.named('position')[0]!.id!;
    first.close();
    for (const lat of [52.511, 52.512, 52.513]) await report(d, lat);
    const again = await open(gateway2, tokenA, `?deviceIds=${ids.a3}`, { 'last-event-id': seen });
    await again.until(() => again.named('position').length >= 3).catch((err: Error) => {
      throw new Error(`${err.message} ${JSON.stringify(again.events)} seen ${seen}`);
    });
    expect(again.named('position').map(latOf)).toEqual([52.511, 52.512, 52.513]);
    // And it carries on live.
    await report(d, 52.514);
    await again.until(() => again.named('position').length === 4);
    const order = again.events.map((e) => Number(e.id));
    expect([...order].sort((x, y) => x - y)).toEqual(order);
    d.close();
  });

  test('a device on tracker A reaches a subscriber connected through gateway 2 and tracker B', async () => {
    const s = await open(gateway2, tokenA, `?deviceIds=${ids.a1}&kinds=position`);
    const d = await device('a1');
    await report(d, 52.505);
    await s.until(() => s.events.length === 1);
    expect(s.events[0]!.data.deviceId).toBe(ids.a1);
    expect(latOf(s.events[0]!)).toBe(52.505);
    d.close();
  });

  test('a quiet stream gets heartbeat comments', async () => {
    const s = await open(gateway2, tokenB, `?deviceIds=${ids.b1}&kinds=command`);
    await s.until(() => s.comments >= 2, 5000);
    expect(s.events).toEqual([]);
  });

  test('account B never sees account A’s positions, and sees its own', async () => {
    const b = await open(gateway1, tokenB);
    const a = await open(gateway1, tokenA, '?kinds=position');
    const [da, db] = [await device('a1'), await device('b1')];
    await report(da, 52.506);
    await report(db, 52.507);
    await a.until(() => a.events.some((e) => latOf(e) === 52.506));
    await b.until(() => b.named('position').length >= 1);
    expect(b.events.map((e) => e.data.deviceId)).not.toContain(ids.a1);
    expect(b.named('position').map((e) => e.data.deviceId)).toEqual([ids.b1]);
    da.close();
    db.close();
  });

  test('at most 5 streams per token across both gateways: the next gets 429 with Retry-After', async () => {
    const token = await stack.token((await stack.account('Limited fleet')), 'read');
    const five = [await open(gateway1, token), await open(gateway2, token), await open(gateway1, token), await open(gateway2, token), await open(gateway1, token)];
    expect(five.map((s) => s.status)).toEqual([200, 200, 200, 200, 200]);
    const sixth = await open(gateway2, token);
    expect(sixth.status).toBe(429);
    expect(Number(sixth.res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await sixth.body()).error).toMatch(/5 streams per token/);
    five[0]!.close();
    // The slot comes back once the gateway sees the stream closed.
    let next = sixth;
    for (let i = 0; i < 50 && next.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 100));
      next = await open(gateway2, token);
    }
    expect(next.status).toBe(200);
  });

  test('a consumer that stops reading is cut off with a cutoff event saying why', async () => {
    const slow = await open(gateway1, tokenA, '?kinds=position');
    slow.stopReading();
    const d = await device('a2');
    // Enough positions to fill the socket buffers between tracker and client, then the tracker's limit.
    for (let burst = 0; burst < 40 && !slow.ended; burst++) {
      for (let i = 0; i < 500; i++) d.send(gt06Position(nextFix(52.5 + i / 100_000), { ignition: true, batteryLevel: 80 }, 2));
      await d.read(500 * 10, 20_000);
    }
    d.close();
    slow.res.resume();
    await slow.until(() => slow.ended, 20_000);
    const last = slow.events.at(-1)!;
    expect(last.event).toBe('cutoff');
    expect(last.data).toMatchObject({ reason: 'slow_consumer' });
    expect(String(last.data.message)).toMatch(/Last-Event-ID/);
  }, 120_000);
});

/** The time of the fix `back` reports before the latest one. */
function nextFixTime(back: number): string {
  return new Date(BASE + (minute - back) * 60_000).toISOString();
}
