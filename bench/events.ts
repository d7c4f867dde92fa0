// `npm run bench -- events`: event → signed webhook received, through a real tracker process on the
// machine's PostgreSQL and a local HTTP receiver that verifies every signature.
//   full path:     GT06 positions over TCP from simulated devices, each report alternately inside and
//                  outside a circle geofence (so each raises one geofence_enter or geofence_exit) →
//                  events engine → outbox → delivery worker → receiver;
//   delivery half: events written to the outbox by the listener, in 20 ms batches as the ingest
//                  batcher commits them → delivery worker → receiver.
// Both at 500 events/s offered, measured for 20 s after 5 s of warm-up; p50/p99 latency and
// events/s delivered. Target: p99 under 1 s.
import { generateKeyPairSync } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { parseConfig } from '../shared/config.js';
import { INTERNAL_HEADERS } from '../shared/internal.js';
import { createTestDatabase } from '../test/helpers/databases.js';
import { startService, stopAllServices } from '../test/helpers/processes.js';
import { enqueue, storedEvent } from '../test/helpers/webhook-events.js';
import { WebhookReceiver, type Received } from '../test/helpers/webhook-receiver.js';
import type { AdminContext } from '../tracker/admin/admin-context.js';
import { runVerb } from '../tracker/admin/verbs.js';
import { gt06Login, gt06Position } from '../tracker/simulator/frames/gt06.js';
import type { Db } from '../tracker/storage/db.js';
import { migrate } from '../tracker/storage/migrate.js';
import { openDb } from '../tracker/storage/open.js';
import { maintainPartitions } from '../tracker/storage/partitions.js';
import { benchKeys, cpuSeconds, fmt, percentile } from './lib.js';
import { NO_DEVICE_PORTS } from '../test/helpers/ports.js';

const RATE = 500;
const SECONDS = 20;
/** Unmeasured traffic first, so a cold process (JIT, connections) is not what is measured. */
const WARMUP_SECONDS = 5;
const TICK_MS = 20;
const DEVICES = 500;
const DEPOT = { lat: 52.52, lng: 13.405 };
const TARGET_P99_MS = 1000;
/** How long the full path waits for its first event before concluding there is no events engine. */
const ENGINE_PROBE_MS = 10_000;
const imeiOf = (i: number) => `86${String(i).padStart(13, '0')}`;

interface Phase {
  /** Correlation key of a received webhook → when its event was caused. */
  keyOf(r: Received): string;
  sentAt: Map<string, number>;
}

function summary(name: string, phase: Phase, received: Received[], cpu: number): string {
  const latencies: number[] = [];
  const seen = new Set<string>();
  for (const r of received) {
    const key = phase.keyOf(r);
    const at = phase.sentAt.get(key);
    if (at === undefined || seen.has(key)) continue;
    seen.add(key);
    latencies.push(r.at - at);
  }
  latencies.sort((a, b) => a - b);
  const first = Math.min(...received.map((r) => r.at));
  const last = Math.max(...received.map((r) => r.at));
  const rate = seen.size / Math.max((last - first) / 1000, 1e-3);
  const p99 = percentile(latencies, 99);
  return (
    `${name}: offered ${RATE}/s for ${SECONDS} s; delivered ${fmt(seen.size, 0)} of ${fmt(phase.sentAt.size, 0)} (${fmt(rate, 0)} events/s), ` +
    `latency p50 ${fmt(percentile(latencies, 50))} ms, p99 ${fmt(p99)} ms, max ${fmt(latencies.at(-1) ?? NaN)} ms; tracker CPU ${fmt(cpu, 0)}% of one core (${fmt((cpu * 10) / RATE, 2)} ms per event); ` +
    `p99 target < ${TARGET_P99_MS} ms: ${p99 < TARGET_P99_MS ? 'met' : 'NOT met'}`
  );
}

/** Calls `tick` every TICK_MS for `seconds` with the events due by then: RATE events/s even when ticks run late. */
function drive(tick: (count: number) => void, seconds = SECONDS): Promise<void> {
  const started = Date.now();
  let offered = 0;
  return new Promise((resolve) => {
    const timer = setInterval(() => {
      const elapsed = Math.min(Date.now() - started, seconds * 1000);
      const due = Math.floor((elapsed * RATE) / 1000) - offered;
      offered += due;
      if (due > 0) tick(due);
      if (elapsed >= seconds * 1000) {
        clearInterval(timer);
        resolve();
      }
    }, TICK_MS);
  });
}

/** Waits until the receiver has had nothing new for quietMs (or maxMs passed). */
async function settle(receiver: WebhookReceiver, quietMs: number, maxMs: number): Promise<void> {
  const deadline = Date.now() + maxMs;
  let seen = -1;
  while (receiver.received.length !== seen && Date.now() < deadline) {
    seen = receiver.received.length;
    await new Promise((r) => setTimeout(r, quietMs));
  }
}

/** A logged-in GT06 device; `acks` gets the time from each position to its ACK (stored, events judged). */
interface Device {
  socket: Socket;
  sent: Map<number, number>;
}

function openDevice(port: number, imei: string, acks: number[]): Promise<Device> {
  return new Promise((resolve, reject) => {
    const device: Device = { socket: connect(port, '127.0.0.1'), sent: new Map() };
    let buffer: Buffer = Buffer.alloc(0);
    device.socket.once('error', reject);
    device.socket.on('data', (d: Buffer) => {
      buffer = buffer.length ? Buffer.concat([buffer, d]) : d;
      for (; buffer.length >= 10; buffer = buffer.subarray(10)) {
        const serial = buffer.readUInt16BE(4);
        const at = device.sent.get(serial);
        if (serial === 1) resolve(device); // the login ACK
        else if (at !== undefined) {
          acks.push(Date.now() - at);
          device.sent.delete(serial);
        }
      }
    });
    device.socket.once('connect', () => device.socket.write(gt06Login(imei, 1)));
  });
}

async function deliveryHalf(db: Db, account: string, devices: string[], receiver: WebhookReceiver, pid: number): Promise<string> {
  const phase: Phase = { keyOf: (r) => String(JSON.parse(r.body).id), sentAt: new Map() };
  let n = 0;
  const writes: Promise<void>[] = [];
  const send = (count: number) => {
    const events = Array.from({ length: count }, () => storedEvent(account, devices[n++ % devices.length]!, { type: 'sos', data: { seq: n } }));
    writes.push(
      enqueue(db, events).then(() => {
        const at = Date.now();
        for (const e of events) phase.sentAt.set(String(e.id), at);
      }),
    );
  };
  await drive(send, WARMUP_SECONDS);
  await Promise.all(writes.splice(0));
  await settle(receiver, 1000, 30_000);
  phase.sentAt.clear();
  receiver.received.length = 0;
  const cpuBefore = cpuSeconds(pid);
  const started = Date.now();
  await drive(send);
  await Promise.all(writes);
  await receiver.waitFor((got) => got.length >= phase.sentAt.size, 30_000).catch(() => undefined);
  const cpu = ((cpuSeconds(pid) - cpuBefore) / ((Date.now() - started) / 1000)) * 100;
  const line = summary('delivery half (outbox → webhook received)', phase, receiver.received, cpu);
  await settle(receiver, 2000, 60_000);
  return line;
}

/** A circle geofence made through the tracker's API, as the gateway would forward it; null when made, else why not. */
async function createGeofence(httpPort: number, gatewaySecret: string, account: string): Promise<string | null> {
  const res = await fetch(`http://127.0.0.1:${httpPort}/api/public/v1/geofences`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      [INTERNAL_HEADERS.secret]: gatewaySecret,
      [INTERNAL_HEADERS.accountId]: account,
      [INTERNAL_HEADERS.tokenId]: 'tok_bench',
      [INTERNAL_HEADERS.scopes]: 'read write',
    },
    body: JSON.stringify({ name: 'Depot', shape: { type: 'circle', center: { lat: DEPOT.lat, lng: DEPOT.lng }, radius: 500 } }),
  });
  return res.ok ? null : `POST /api/public/v1/geofences answered ${res.status} ${(await res.text()).slice(0, 200)}`;
}

async function fullPath(ports: { device: number; http: number }, gatewaySecret: string, account: string, receiver: WebhookReceiver, pid: number): Promise<string> {
  const name = 'full path (GT06 positions over TCP → geofence event → webhook received)';
  const refused = await createGeofence(ports.http, gatewaySecret, account);
  if (refused) return `${name}: skipped, ${refused} (no events engine in this build?)`;
  const acks: number[] = [];
  const devices = await Promise.all(Array.from({ length: DEVICES }, (_, i) => openDevice(ports.device, imeiOf(i), acks)));
  try {
    await settle(receiver, 2000, 60_000); // device_online webhooks
    const phase: Phase = {
      keyOf: (r) => {
        const p = JSON.parse(r.body) as { device: { imei: string } | null; position: { timestamp: string } | null };
        return `${p.device?.imei}/${p.position ? Date.parse(p.position.timestamp) : null}`;
      },
      sentAt: new Map(),
    };
    const base = Date.UTC(2026, 9, 1);
    let seq = 0;
    // Each device's reports alternate inside and outside the geofence: every report is a transition.
    const send = (count: number) => {
      for (let k = 0; k < count; k++, seq++) {
        const time = new Date(base + seq * 1000);
        const device = seq % DEVICES;
        const inside = Math.floor(seq / DEVICES) % 2 === 0;
        phase.sentAt.set(`${imeiOf(device)}/${time.getTime()}`, Date.now());
        const serial = (seq % 0xfff0) + 2;
        devices[device]!.sent.set(serial, Date.now());
        devices[device]!.socket.write(gt06Position({ time, lat: inside ? DEPOT.lat : DEPOT.lat + 0.05, lng: DEPOT.lng, speed: 30, heading: 0 }, {}, serial));
      }
    };
    receiver.received.length = 0;
    send(DEVICES);
    const engine = await receiver.waitFor((got) => got.some((r) => phase.sentAt.has(phase.keyOf(r))), ENGINE_PROBE_MS).then(() => true, () => false);
    if (!engine) return `${name}: skipped, no geofence event came back within ${ENGINE_PROBE_MS / 1000} s (no events engine in this build)`;
    await drive(send, WARMUP_SECONDS);
    await settle(receiver, 2000, 60_000);
    phase.sentAt.clear();
    receiver.received.length = 0;
    acks.length = 0;
    const cpuBefore = cpuSeconds(pid);
    const started = Date.now();
    await drive(send);
    await receiver.waitFor((got) => got.length >= phase.sentAt.size, 30_000).catch(() => undefined);
    const cpu = ((cpuSeconds(pid) - cpuBefore) / ((Date.now() - started) / 1000)) * 100;
    acks.sort((a, b) => a - b);
    const ackLine = `\n  of which position → device ACK (stored, events judged and enqueued): p50 ${fmt(percentile(acks, 50))} ms, p99 ${fmt(percentile(acks, 99))} ms over ${fmt(acks.length, 0)} ACKs`;
    return summary(name, phase, receiver.received, cpu) + ackLine;
  } finally {
    for (const d of devices) d.socket.destroy();
  }
}

export async function run(): Promise<void> {
  const t = await createTestDatabase('postgres');
  const db = await openDb({ databaseUrl: t.url, dataDir: t.dataDir });
  const receiver = await WebhookReceiver.start();
  try {
    await migrate(db);
    await maintainPartitions(db, 365);
    const keys = benchKeys();
    const allowLocal = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' };
    const ctx: AdminContext = { db, privateKey: generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey, config: parseConfig(allowLocal) };
    const account = ((await runVerb(ctx, 'accounts create', { name: 'Bench' })) as { id: string }).id;
    const devices: string[] = [];
    for (let i = 0; i < DEVICES; i++) devices.push(((await runVerb(ctx, 'devices add', { account, imei: imeiOf(i), name: `Unit ${i}` })) as { id: string }).id);
    const { secret } = (await runVerb(ctx, 'webhooks add', { account, url: receiver.url(), events: 'all' })) as { secret: string };

    const tracker = await startService('tracker/main.ts', { ...keys.env, ...allowLocal, DATABASE_URL: t.url!, DATA_DIR: t.dataDir, TRACKER_HTTP_PORT: '0', ...NO_DEVICE_PORTS });
    const line = await tracker.waitForLog((l) => l.msg === 'tracker started');
    const ports = { device: (line.devicePorts as Record<string, number>).device!, http: line.httpPort as number };

    const verifier = new Webhook(secret);
    let verified = 0;
    let total = 0;
    const verify = () => {
      total += receiver.received.length;
      for (const r of receiver.received.splice(0)) {
        try {
          verifier.verify(r.body, r.headers as Record<string, string>);
          verified++;
        } catch {
          // counted as not verified
        }
      }
    };
    process.stdout.write(`${await deliveryHalf(db, account, devices, receiver, tracker.pid)}\n`);
    verify();
    process.stdout.write(`${await fullPath(ports, keys.env.GATEWAY_SECRET!, account, receiver, tracker.pid)}\n`);
    verify();
    process.stdout.write(`signatures verified with standardwebhooks: ${fmt(verified, 0)} of ${fmt(total, 0)}\n`);
  } finally {
    await stopAllServices();
    await receiver.close();
    await db.close();
    await t.drop();
  }
}
