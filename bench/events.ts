// `npm run bench -- events`: event → signed webhook received, through a real tracker process on the
// machine's PostgreSQL and a local HTTP receiver that verifies every signature.
//   full path:     GT06 SOS alarm packets over TCP from simulated devices → events engine → outbox →
//                  delivery worker → receiver (each alarm packet is expected to raise one `sos` event);
//   delivery half: events written to the outbox by the listener, in 20 ms batches as the ingest
//                  batcher commits them → delivery worker → receiver.
// Both at 500 events/s offered; p50/p99 latency and events/s delivered. Target: p99 under 1 s.
import { generateKeyPairSync } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { parseConfig } from '../shared/config.js';
import { runCommand, type AdminContext } from '../tracker/admin/commands.js';
import { openDb, type Db } from '../tracker/storage/db.js';
import { migrate } from '../tracker/storage/migrate.js';
import { maintainPartitions } from '../tracker/storage/partitions.js';
import { gt06Alarm, gt06Login } from '../tracker/simulator/frames/gt06.js';
import { createTestDatabase } from '../test/helpers/databases.js';
import { startService, stopAllServices } from '../test/helpers/processes.js';
import { enqueue, storedEvent } from '../test/helpers/webhook-events.js';
import { WebhookReceiver, type Received } from '../test/helpers/webhook-receiver.js';
import { benchKeys, cpuSeconds, fmt, percentile } from './lib.js';

const RATE = 500;
const SECONDS = 20;
const TICK_MS = 20;
const DEVICES = 200;
const TARGET_P99_MS = 1000;
/** How long the full path waits for its first webhook before concluding there is no events engine. */
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
    `latency p50 ${fmt(percentile(latencies, 50))} ms, p99 ${fmt(p99)} ms, max ${fmt(latencies.at(-1) ?? NaN)} ms; tracker CPU ${fmt(cpu, 0)}% of one core; ` +
    `p99 target < ${TARGET_P99_MS} ms: ${p99 < TARGET_P99_MS ? 'met' : 'NOT met'}`
  );
}

/** Calls `tick` every TICK_MS for SECONDS with the events due by then: RATE events/s even when ticks run late. */
function drive(tick: (count: number) => void): Promise<void> {
  const started = Date.now();
  let offered = 0;
  return new Promise((resolve) => {
    const timer = setInterval(() => {
      const elapsed = Math.min(Date.now() - started, SECONDS * 1000);
      const due = Math.floor((elapsed * RATE) / 1000) - offered;
      offered += due;
      if (due > 0) tick(due);
      if (elapsed >= SECONDS * 1000) {
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

function openDevice(port: number, imei: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('error', reject);
    socket.once('data', () => {
      socket.resume(); // ACKs are not needed here; keep reading them
      resolve(socket);
    });
    socket.once('connect', () => socket.write(gt06Login(imei, 1)));
  });
}

async function deliveryHalf(db: Db, account: string, devices: string[], receiver: WebhookReceiver, pid: number): Promise<string> {
  const phase: Phase = { keyOf: (r) => String(JSON.parse(r.body).id), sentAt: new Map() };
  receiver.received.length = 0;
  const cpuBefore = cpuSeconds(pid);
  const started = Date.now();
  let n = 0;
  const writes: Promise<void>[] = [];
  await drive((count) => {
    const events = Array.from({ length: count }, () => storedEvent(account, devices[n++ % devices.length]!, { type: 'sos', data: { seq: n } }));
    writes.push(enqueue(db, events).then(() => {
      const at = Date.now();
      for (const e of events) phase.sentAt.set(String(e.id), at);
    }));
  });
  await Promise.all(writes);
  await receiver.waitFor((got) => got.length >= phase.sentAt.size, 30_000).catch(() => undefined);
  const cpu = ((cpuSeconds(pid) - cpuBefore) / ((Date.now() - started) / 1000)) * 100;
  const line = summary('delivery half (outbox → webhook received)', phase, receiver.received, cpu);
  await settle(receiver, 2000, 60_000);
  return line;
}

async function fullPath(port: number, receiver: WebhookReceiver, pid: number): Promise<string> {
  const sockets = await Promise.all(Array.from({ length: DEVICES }, (_, i) => openDevice(port, imeiOf(i))));
  try {
    const phase: Phase = {
      keyOf: (r) => {
        const p = JSON.parse(r.body) as { device: { imei: string } | null; position: { timestamp: string } | null };
        return `${p.device?.imei}/${p.position?.timestamp}`;
      },
      sentAt: new Map(),
    };
    receiver.received.length = 0;
    const base = Date.UTC(2026, 9, 1);
    let seq = 0;
    const send = (count: number) => {
      for (let k = 0; k < count; k++, seq++) {
        const time = new Date(base + seq * 1000);
        const device = seq % DEVICES;
        phase.sentAt.set(`${imeiOf(device)}/${time.toISOString()}`, Date.now());
        sockets[device]!.write(gt06Alarm({ time, lat: 52.52, lng: 13.405, speed: 30, heading: 90 }, 'sos', {}, (seq % 0xfff0) + 2));
      }
    };
    // A few alarms first: without an events engine in this build, no webhook for them ever comes.
    send(20);
    const engine = await receiver.waitFor((got) => got.some((r) => phase.sentAt.has(phase.keyOf(r))), ENGINE_PROBE_MS).then(() => true, () => false);
    if (!engine) return `full path (GT06 SOS over TCP → webhook received): skipped, no webhook within ${ENGINE_PROBE_MS / 1000} s of the first SOS alarms (no events engine in this build)`;
    await new Promise((r) => setTimeout(r, 2000));
    phase.sentAt.clear();
    receiver.received.length = 0;
    const cpuBefore = cpuSeconds(pid);
    const started = Date.now();
    await drive(send);
    await receiver.waitFor((got) => got.length >= phase.sentAt.size, 30_000).catch(() => undefined);
    const cpu = ((cpuSeconds(pid) - cpuBefore) / ((Date.now() - started) / 1000)) * 100;
    return summary('full path (GT06 SOS over TCP → webhook received)', phase, receiver.received, cpu);
  } finally {
    for (const s of sockets) s.destroy();
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
    const account = ((await runCommand(ctx, 'accounts create', { name: 'Bench' })) as { id: string }).id;
    const devices: string[] = [];
    for (let i = 0; i < DEVICES; i++) devices.push(((await runCommand(ctx, 'devices add', { account, imei: imeiOf(i), name: `Unit ${i}` })) as { id: string }).id);
    const { secret } = (await runCommand(ctx, 'webhooks add', { account, url: receiver.url(), events: 'all' })) as { secret: string };

    const tracker = await startService('tracker/main.ts', { ...keys.env, ...allowLocal, DATABASE_URL: t.url!, DATA_DIR: t.dataDir, TRACKER_HTTP_PORT: '0', DEVICE_PORT: '0', OSMAND_PORT: '0', GT06_PORT: '0', TELTONIKA_PORT: '0', H02_PORT: '0' });
    const line = await tracker.waitForLog((l) => l.msg === 'tracker started');
    const port = (line.devicePorts as Record<string, number>).device!;

    const verifier = new Webhook(secret);
    let verified = 0;
    let total = 0;
    const verify = () => {
      total += receiver.received.length;
      for (const r of receiver.received) {
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
    process.stdout.write(`${await fullPath(port, receiver, tracker.pid)}\n`);
    verify();
    process.stdout.write(`signatures verified with standardwebhooks: ${fmt(verified, 0)} of ${fmt(total, 0)}\n`);
  } finally {
    await stopAllServices();
    await receiver.close();
    await db.close();
    await t.drop();
  }
}
