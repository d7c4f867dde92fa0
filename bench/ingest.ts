// `npm run bench -- ingest`: 10,000 simulated GT06 devices on real TCP connections to a real tracker
// process on the machine's PostgreSQL, driven at increasing rates. Reports positions/s durably
// stored, ACK latency, tracker CPU and memory, memory per idle connection, and the ratio to COPY of
// the same rows through psql (the physical limit).
import { spawn } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { parseConfig } from '../shared/config.js';
import { createTestDatabase } from '../test/helpers/databases.js';
import { startService, stopAllServices } from '../test/helpers/processes.js';
import { runVerb } from '../tracker/admin/verbs.js';
import { gt06Login, gt06Position } from '../tracker/simulator/frames/gt06.js';
import { migrate } from '../tracker/storage/migrate.js';
import { openDb } from '../tracker/storage/open.js';
import { maintainPartitions } from '../tracker/storage/partitions.js';
import { benchKeys, cpuSeconds, fmt, percentile, rssMb } from './lib.js';
import { NO_DEVICE_PORTS } from '../test/helpers/ports.js';

const DEVICES = 10_000;
const RATES = [2_000, 5_000, 10_000, 15_000];
const SECONDS_PER_RATE = 10;
const imeiOf = (i: number) => `86${String(i).padStart(13, '0')}`;

interface Conn {
  socket: Socket;
  serial: number;
  sent: Map<number, bigint>;
  buffer: Buffer;
}

function openDevice(port: number, i: number, latencies: number[]): Promise<Conn> {
  return new Promise((resolve, reject) => {
    const conn: Conn = { socket: connect(port, '127.0.0.1'), serial: 1, sent: new Map(), buffer: Buffer.alloc(0) };
    conn.socket.once('error', reject);
    conn.socket.on('data', (d: Buffer) => {
      conn.buffer = conn.buffer.length ? Buffer.concat([conn.buffer, d]) : d;
      while (conn.buffer.length >= 10) {
        const serial = conn.buffer.readUInt16BE(4);
        const at = conn.sent.get(serial);
        if (at !== undefined) {
          latencies.push(Number(process.hrtime.bigint() - at) / 1e6);
          conn.sent.delete(serial);
        } else if (serial === 1) resolve(conn); // the login ACK
        conn.buffer = conn.buffer.subarray(10);
      }
    });
    conn.socket.once('connect', () => conn.socket.write(gt06Login(imeiOf(i), 1)));
  });
}

async function copyRate(url: string, rows: number): Promise<number> {
  const child = spawn('psql', [url, '-X', '-q', '-c', '\\copy positions (device_id, device_time, valid, lat, lng, speed, heading, attributes) FROM STDIN']);
  const started = process.hrtime.bigint();
  const base = Date.UTC(2026, 0, 1);
  for (let i = 0; i < rows; i += 10_000) {
    let chunk = '';
    for (let k = i; k < Math.min(rows, i + 10_000); k++) chunk += `dev_copy${k % 100}\t${new Date(base + k * 1000).toISOString()}\tt\t52.5\t13.4\t40\t90\t{}\n`;
    if (!child.stdin.write(chunk)) await new Promise((r) => child.stdin.once('drain', r));
  }
  child.stdin.end();
  await new Promise((resolve, reject) => child.on('close', (code) => (code === 0 ? resolve(null) : reject(new Error(`psql exited ${code}`)))));
  return rows / (Number(process.hrtime.bigint() - started) / 1e9);
}

export async function run(): Promise<void> {
  const t = await createTestDatabase('postgres');
  const db = await openDb({ databaseUrl: t.url, dataDir: t.dataDir });
  const conns: Conn[] = [];
  try {
    await migrate(db);
    await maintainPartitions(db, 365);
    const keys = benchKeys();
    const account = ((await runVerb({ db, privateKey: keys.privateKey, config: parseConfig({}) }, 'accounts create', { name: 'Bench' })) as { id: string }).id;
    await db.query(`INSERT INTO devices (id, account_id, imei, name) SELECT 'dev_' || lpad(i::text, 20, '0'), $1, '86' || lpad(i::text, 13, '0'), 'Unit ' || i FROM generate_series(0, $2 - 1) AS i`, [account, DEVICES]);
    // Every simulated device connects from this one address.
    const tracker = await startService('tracker/main.ts', { ...keys.env, LOG_LEVEL: 'info', DATABASE_URL: t.url!, DATA_DIR: t.dataDir, TRACKER_HTTP_PORT: '0', ...NO_DEVICE_PORTS, DEVICE_MAX_CONNECTIONS_PER_ADDRESS: String(DEVICES) });
    const line = await tracker.waitForLog((l) => l.msg === 'tracker started');
    const port = (line.devicePorts as Record<string, number>).device!;

    const rssEmpty = rssMb(tracker.pid);
    const latencies: number[] = [];
    for (let i = 0; i < DEVICES; i += 500) conns.push(...(await Promise.all(Array.from({ length: Math.min(500, DEVICES - i) }, (_, k) => openDevice(port, i + k, latencies)))));
    await new Promise((r) => setTimeout(r, 2000));
    const rssIdle = rssMb(tracker.pid);
    const lines = [`${fmt(DEVICES, 0)} devices logged in; tracker memory ${fmt(rssEmpty)} MB → ${fmt(rssIdle)} MB: ${fmt(((rssIdle - rssEmpty) * 1024) / DEVICES)} KB per idle connection (target < 20)`];

    const base = Date.UTC(2026, 9, 1);
    let seq = 0;
    let best = 0;
    for (const rate of RATES) {
      latencies.length = 0;
      const before = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM positions'))[0]!.n;
      const cpuBefore = cpuSeconds(tracker.pid);
      let rssPeak = 0;
      const started = Date.now();
      const perTick = rate / 20; // every 50 ms
      await new Promise<void>((resolve) => {
        const timer = setInterval(() => {
          rssPeak = Math.max(rssPeak, rssMb(tracker.pid));
          for (let k = 0; k < perTick; k++) {
            const c = conns[seq % DEVICES]!;
            c.serial = c.serial >= 0xfffe ? 2 : c.serial + 1;
            c.sent.set(c.serial, process.hrtime.bigint());
            c.socket.write(gt06Position({ time: new Date(base + seq * 1000), lat: 52.5, lng: 13.4, speed: 40, heading: 90 }, {}, c.serial));
            seq++;
          }
          if (Date.now() - started >= SECONDS_PER_RATE * 1000) {
            clearInterval(timer);
            resolve();
          }
        }, 50);
      });
      await new Promise((r) => setTimeout(r, 1000)); // let the last batches commit
      const elapsed = (Date.now() - started) / 1000;
      const stored = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM positions'))[0]!.n - before;
      const cpu = ((cpuSeconds(tracker.pid) - cpuBefore) / elapsed) * 100;
      latencies.sort((a, b) => a - b);
      const storedRate = stored / SECONDS_PER_RATE;
      best = Math.max(best, storedRate);
      lines.push(
        `offered ${fmt(rate, 0)}/s: stored ${fmt(storedRate, 0)} positions/s, ACK p50 ${fmt(percentile(latencies, 50))} ms p99 ${fmt(percentile(latencies, 99))} ms, ` +
          `${fmt(latencies.length, 0)} ACKs, tracker CPU ${fmt(cpu, 0)}% of one core, memory peak ${fmt(rssPeak)} MB`,
      );
      process.stdout.write(`${lines.at(-1)}\n`);
    }
    const copy = await copyRate(t.url!, 300_000);
    lines.push(`COPY via psql: ${fmt(copy, 0)} rows/s; best stored rate ÷ COPY = ${fmt(best / copy, 3)}`);
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    for (const c of conns) c.socket.destroy();
    await stopAllServices();
    await db.close();
    await t.drop();
  }
}
