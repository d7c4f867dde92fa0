// `npm run bench -- stream [--seconds N]`: 1,000 simulated GT06 devices on real TCP connections,
// each reporting once a second to a real tracker process on the machine's PostgreSQL, and 200 live
// feed subscribers reading Server-Sent Events through a real gateway process, each following 50 of
// the units (every position reaches 10 subscribers). Reports the time from the device's ACK to a
// subscriber reading the event (p50/p99, target p99 < 100 ms), the tracker's memory sampled over the
// run (default 300 s), and CPU per delivered event (tracker and gateway).
import http from 'node:http';
import { connect, type Socket } from 'node:net';
import { parseConfig } from '../shared/config.js';
import { createTestDatabase } from '../test/helpers/databases.js';
import { freePort, NO_DEVICE_PORTS } from '../test/helpers/ports.js';
import { startService, stopAllServices } from '../test/helpers/processes.js';
import { runVerb } from '../tracker/admin/verbs.js';
import { gt06Login, gt06Position } from '../tracker/simulator/frames/gt06.js';
import { migrate } from '../tracker/storage/migrate.js';
import { openDb } from '../tracker/storage/open.js';
import { maintainPartitions } from '../tracker/storage/partitions.js';
import { benchKeys, cpuSeconds, fmt, percentile, rssMb } from './lib.js';

const DEVICES = 1000;
const SUBSCRIBERS = 200;
const UNITS_PER_SUBSCRIBER = 50;
/** Latencies of the first seconds (connections settling, caches filling) are left out. */
const WARM_UP_SECONDS = 10;
const RSS_EVERY_MS = 5000;

const idOf = (i: number) => `dev_${String(i).padStart(20, '0')}`;
const imeiOf = (i: number) => `87${String(i).padStart(13, '0')}`;

function secondsArg(): number {
  const args = process.argv.slice(2);
  const at = args.findIndex((a) => a === '--seconds' || a.startsWith('--seconds='));
  if (at < 0) return 300;
  const value = Number(args[at]!.includes('=') ? args[at]!.split('=')[1] : args[at + 1]);
  if (!Number.isInteger(value) || value < 15) throw new Error('--seconds must be a whole number of at least 15');
  return value;
}

/** When each position was ACKed, and when a subscriber first read it; whichever comes second measures. */
class Latencies {
  readonly samples: number[] = [];
  private readonly acked = new Map<string, number>();
  private readonly readEarly = new Map<string, number[]>();
  measuring = false;

  ack(key: string, at: number): void {
    const early = this.readEarly.get(key);
    if (early) {
      this.readEarly.delete(key);
      if (this.measuring) for (const _ of early) this.samples.push(0);
    }
    this.acked.set(key, at);
  }

  read(key: string, at: number): void {
    const acked = this.acked.get(key);
    if (acked === undefined) {
      const list = this.readEarly.get(key);
      if (list) list.push(at);
      else this.readEarly.set(key, [at]);
    } else if (this.measuring) this.samples.push(at - acked);
  }

  /** Forgets ACKs older than the given time (every subscriber has read them by then). */
  prune(before: number): void {
    for (const [key, at] of this.acked) {
      if (at >= before) break;
      this.acked.delete(key);
    }
  }
}

const now = () => Number(process.hrtime.bigint()) / 1e6;

interface Device {
  socket: Socket;
  buffer: Buffer;
  /** Serial → the key of the position it carried. */
  sent: Map<number, string>;
  serial: number;
}

function openDevice(port: number, i: number, latencies: Latencies): Promise<Device> {
  return new Promise((resolve, reject) => {
    const d: Device = { socket: connect(port, '127.0.0.1'), buffer: Buffer.alloc(0), sent: new Map(), serial: 1 };
    d.socket.setNoDelay(true);
    d.socket.once('error', reject);
    d.socket.on('data', (chunk: Buffer) => {
      d.buffer = d.buffer.length ? Buffer.concat([d.buffer, chunk]) : chunk;
      while (d.buffer.length >= 10) {
        const serial = d.buffer.readUInt16BE(4);
        const key = d.sent.get(serial);
        if (key !== undefined) {
          latencies.ack(key, now());
          d.sent.delete(serial);
        } else if (serial === 1) resolve(d);
        d.buffer = d.buffer.subarray(10);
      }
    });
    d.socket.once('connect', () => d.socket.write(gt06Login(imeiOf(i), 1)));
  });
}

/** A subscriber: counts the events it reads and measures each position against its ACK. */
function subscribe(base: string, token: string, units: string[], latencies: Latencies, counts: { events: number; cutoffs: number }): Promise<http.ClientRequest> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}/api/public/v1/stream?kinds=position&deviceIds=${units.join(',')}`, { headers: { authorization: `Bearer ${token}` } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream answered ${res.statusCode}`));
      res.setEncoding('utf8');
      let partial = '';
      res.on('data', (chunk: string) => {
        const at = now();
        const blocks = (partial + chunk).split('\n\n');
        partial = blocks.pop()!;
        for (const block of blocks) {
          if (block.includes('event: cutoff')) counts.cutoffs++;
          const data = block.indexOf('\ndata: ');
          if (data < 0 || !block.includes('event: position')) continue;
          const p = JSON.parse(block.slice(data + 7)) as { deviceId: string; timestamp: string };
          counts.events++;
          latencies.read(`${p.deviceId} ${Date.parse(p.timestamp)}`, at);
        }
      });
      resolve(req);
    });
    req.on('error', reject);
  });
}

export async function run(): Promise<void> {
  const seconds = secondsArg();
  const t = await createTestDatabase('postgres');
  const db = await openDb({ databaseUrl: t.url, dataDir: t.dataDir });
  const devices: Device[] = [];
  const streams: http.ClientRequest[] = [];
  try {
    await migrate(db);
    await maintainPartitions(db, 365);
    const keys = benchKeys();
    const admin = { db, privateKey: keys.privateKey, config: parseConfig({}) };
    const account = ((await runVerb(admin, 'accounts create', { name: 'Bench' })) as { id: string }).id;
    const token = ((await runVerb(admin, 'tokens create', { account, scopes: 'read' })) as { token: string }).token;
    await db.query(`INSERT INTO devices (id, account_id, imei, name) SELECT 'dev_' || lpad(i::text, 20, '0'), $1, '87' || lpad(i::text, 13, '0'), 'Unit ' || i FROM generate_series(0, $2 - 1) AS i`, [account, DEVICES]);

    const tracker = await startService('tracker/main.ts', { ...keys.env, DATABASE_URL: t.url!, DATA_DIR: t.dataDir, TRACKER_HTTP_PORT: '0', ...NO_DEVICE_PORTS, DEVICE_MAX_CONNECTIONS_PER_ADDRESS: String(DEVICES) });
    const line = await tracker.waitForLog((l) => l.msg === 'tracker started');
    const devicePort = (line.devicePorts as Record<string, number>).device!;
    const gatewayPort = await freePort();
    const gateway = await startService(
      'gateway/main.ts',
      { ...keys.env, GATEWAY_PORT: String(gatewayPort), GATEWAY_HOST: '127.0.0.1', TRACKER_URL: `http://127.0.0.1:${tracker.port}`, STREAM_MAX_PER_TOKEN: String(SUBSCRIBERS), RATE_LIMIT_READ_PER_MINUTE: '100000' },
      { timeoutMs: 60_000 },
    );
    const base = `http://127.0.0.1:${gateway.port}`;

    const latencies = new Latencies();
    const counts = { events: 0, cutoffs: 0 };
    for (let s = 0; s < SUBSCRIBERS; s++) {
      const units = Array.from({ length: UNITS_PER_SUBSCRIBER }, (_, k) => idOf((s * (DEVICES / SUBSCRIBERS) + k) % DEVICES));
      streams.push(await subscribe(base, token, units, latencies, counts));
    }
    for (let i = 0; i < DEVICES; i += 250) devices.push(...(await Promise.all(Array.from({ length: 250 }, (_, k) => openDevice(devicePort, i + k, latencies)))));
    await new Promise((r) => setTimeout(r, 2000));

    const rss: { at: number; mb: number }[] = [];
    const started = Date.now();
    const fixBase = Math.floor((started - 86_400_000) / 1000) * 1000;
    let cpuFrom = { tracker: 0, gateway: 0 };
    let eventsFrom = 0;
    let tick = 0;
    const TICK_MS = 50;
    const perTick = DEVICES / (1000 / TICK_MS);
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        const elapsed = (Date.now() - started) / 1000;
        if (!latencies.measuring && elapsed >= WARM_UP_SECONDS) {
          latencies.measuring = true;
          cpuFrom = { tracker: cpuSeconds(tracker.pid), gateway: cpuSeconds(gateway.pid) };
          eventsFrom = counts.events;
        }
        // Every device once a second, spread over the second; each fix one second after its last.
        const second = Math.floor((tick * TICK_MS) / 1000);
        for (let k = 0; k < perTick; k++) {
          const i = (tick % (1000 / TICK_MS)) * perTick + k;
          const d = devices[i]!;
          d.serial = d.serial >= 0xfffe ? 2 : d.serial + 1;
          const time = fixBase + second * 1000;
          d.sent.set(d.serial, `${idOf(i)} ${time}`);
          d.socket.write(gt06Position({ time: new Date(time), lat: 52.5 + (second % 100) / 100_000, lng: 13.4, speed: 40, heading: 90 }, { ignition: true }, d.serial));
        }
        tick++;
        if (tick % (RSS_EVERY_MS / TICK_MS) === 0) {
          rss.push({ at: elapsed, mb: rssMb(tracker.pid) });
          latencies.prune(now() - 30_000);
        }
        if (elapsed >= seconds) {
          clearInterval(timer);
          resolve();
        }
      }, TICK_MS);
    });
    await new Promise((r) => setTimeout(r, 1000)); // the last events on their way
    const measured = seconds - WARM_UP_SECONDS + 1;
    const cpu = { tracker: cpuSeconds(tracker.pid) - cpuFrom.tracker, gateway: cpuSeconds(gateway.pid) - cpuFrom.gateway };
    const delivered = counts.events - eventsFrom;
    // A typed array sorts millions of numbers in numeric order without a comparator call each.
    const sorted = Array.from(Float64Array.from(latencies.samples).sort());
    const stored = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM positions'))[0]!.n;

    const minute = Math.min(60, Math.floor(seconds / 3));
    const mean = (xs: { mb: number }[]) => xs.reduce((s, x) => s + x.mb, 0) / xs.length;
    const first = mean(rss.filter((r) => r.at >= WARM_UP_SECONDS && r.at < WARM_UP_SECONDS + minute));
    const last = mean(rss.filter((r) => r.at >= seconds - minute));
    const lines = [
      `${fmt(DEVICES, 0)} devices × 1/s for ${seconds} s, ${SUBSCRIBERS} subscribers through the gateway each following ${UNITS_PER_SUBSCRIBER} units; ${fmt(stored, 0)} positions stored`,
      `ACK → subscriber read: p50 ${fmt(percentile(sorted, 50))} ms, p99 ${fmt(percentile(sorted, 99))} ms, max ${fmt(sorted.at(-1) ?? NaN)} ms over ${fmt(sorted.length, 0)} deliveries (target p99 < 100 ms)`,
      `events delivered: ${fmt(delivered / measured, 0)}/s; cut off: ${counts.cutoffs}`,
      `CPU per delivered event: tracker ${fmt((cpu.tracker / delivered) * 1e6)} µs, gateway ${fmt((cpu.gateway / delivered) * 1e6)} µs (tracker ${fmt((cpu.tracker / measured) * 100, 0)}%, gateway ${fmt((cpu.gateway / measured) * 100, 0)}% of one core)`,
      `tracker memory: ${fmt(first)} MB over the first minute after warm-up, ${fmt(last)} MB over the last, peak ${fmt(Math.max(...rss.map((r) => r.mb)))} MB (samples every ${RSS_EVERY_MS / 1000} s: ${rss.map((r) => fmt(r.mb, 0)).join(' ')})`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    for (const s of streams) s.destroy();
    for (const d of devices) d.socket.destroy();
    await stopAllServices();
    await db.close();
    await t.drop();
  }
}
