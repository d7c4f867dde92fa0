// `npm run bench -- gateway`: the same upstream answer ({ data: [50 devices] }) loaded (a) from the
// upstream directly, (b) through a bare Express + http-proxy-middleware proxy, (c) through the
// gateway with authentication, scopes, Redis-backed limits and logging, (d) through nginx (the proxy
// limit of the machine; left out when nginx is not installed). 50 connections, loopback.
import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { signToken } from '../shared/tokens.js';
import { startBenchNginx, type BenchNginx } from './gateway-nginx.js';
import { BENCH_ACCOUNT } from './gateway-peers.js';

// The processes under test run compiled, as in production: `npm run bench` builds dist/ first.
const DIST = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const CONNECTIONS = 50;
// Configurations alternate in rounds, so a change in background load shifts all of them alike;
// each figure is the median of its rounds.
const ROUNDS = 3;
const ROUND_SECONDS = Number(process.env.BENCH_ROUND_SECONDS ?? 4);
const WARMUP_SECONDS = 2;
const children: ChildProcess[] = [];
let logDir = '';

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** CPU time the process under test spent per request (µs): unlike req/s, barely moved by other load. */
  cpuUs: number;
}

/** User + system CPU time of a process so far, in µs (Linux /proc; clock ticks of 10 ms). */
function cpuTime(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/**
 * Starts a process that logs a JSON "… started" line with its port. Its output goes to a file, as
 * a container's would go to the log driver, so reading it costs the load generator nothing.
 */
async function start(script: string, args: string[], env: Record<string, string> = {}): Promise<{ port: number; pid: number }> {
  const logFile = join(logDir, `${script.replace(/\W+/g, '-')}-${children.length}.log`);
  const out = openSync(logFile, 'w');
  const child = spawn(process.execPath, [join(DIST, script), ...args], { env: { ...process.env, ...env }, stdio: ['ignore', out, 'inherit'] });
  closeSync(out);
  children.push(child);
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
    if (child.exitCode !== null) break;
    const line = readFileSync(logFile, 'utf8').split('\n').find((l) => /"msg":"[a-z]+ started"/.test(l));
    if (line) return { port: (JSON.parse(line) as { port: number }).port, pid: child.pid! };
  }
  throw new Error(`${script} did not start:\n${readFileSync(logFile, 'utf8')}`);
}

async function load(url: string, headers: Record<string, string>, seconds: number, pid: number): Promise<Figures> {
  const cpuBefore = cpuTime(pid);
  const result = await autocannon({ url, connections: CONNECTIONS, duration: seconds, headers });
  const cpuUs = (cpuTime(pid) - cpuBefore) / Math.max(1, result.requests.total);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.non2xx, cpuUs };
}

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;

function report(name: string, rounds: Figures[]): Figures {
  const f: Figures = {
    rps: median(rounds.map((r) => r.rps)),
    p50: median(rounds.map((r) => r.p50)),
    p99: median(rounds.map((r) => r.p99)),
    errors: rounds.reduce((n, r) => n + r.errors, 0),
    cpuUs: median(rounds.map((r) => r.cpuUs)),
  };
  const each = rounds.map((r) => r.rps.toFixed(0)).join('/');
  process.stdout.write(
    `${name.padEnd(34)} ${f.rps.toFixed(0).padStart(7)} req/s   p50 ${String(f.p50).padStart(3)} ms   p99 ${String(f.p99).padStart(3)} ms   CPU ${f.cpuUs.toFixed(0).padStart(3)} µs/req   rounds ${each}${f.errors ? `   (${f.errors} errors/non-2xx!)` : ''}\n`,
  );
  return f;
}

export async function run(): Promise<void> {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const token = signToken({ tokenId: 'tok_bench', accountId: BENCH_ACCOUNT, scopes: ['read'] }, privateKey);
  logDir = mkdtempSync(join(tmpdir(), 'bench-gateway-'));
  let nginx: BenchNginx | null = null;
  try {
    const up = await start('bench/gateway-peers.js', ['upstream', '0']);
    const upstream = `http://127.0.0.1:${up.port}`;
    const proxy = await start('bench/gateway-peers.js', ['proxy', '0', upstream]);
    const gateway = await start('gateway/main.js', [], {
      GATEWAY_PORT: '0',
      GATEWAY_HOST: '127.0.0.1',
      GATEWAY_METRICS_PORT: '0',
      TRACKER_URL: upstream,
      JWT_PUBLIC_KEY: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      GATEWAY_SECRET: randomBytes(32).toString('base64url'),
      REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      RATE_LIMIT_PREFIX: `bench:${randomBytes(4).toString('hex')}:`,
      RATE_LIMIT_READ_PER_MINUTE: '1000000000',
      LOG_LEVEL: 'info',
      NODE_ENV: 'production',
    });
    nginx = await startBenchNginx(up.port);
    const path = '/api/public/v1/devices';
    const configs: [string, string, Record<string, string>, number][] = [
      ['(a) upstream directly', `${upstream}${path}`, {}, up.pid],
      ['(b) bare Express + proxy', `http://127.0.0.1:${proxy.port}${path}`, {}, proxy.pid],
      ['(c) gateway (auth, limits, logs)', `http://127.0.0.1:${gateway.port}${path}`, { authorization: `Bearer ${token}` }, gateway.pid],
    ];
    if (nginx) configs.push(['(d) nginx proxy', `http://127.0.0.1:${nginx.port}${path}`, {}, nginx.pid]);
    else process.stdout.write('nginx is not installed: (d) is left out\n');
    process.stdout.write(`GET ${path}, ${CONNECTIONS} connections, ${ROUNDS} alternating rounds of ${ROUND_SECONDS} s per configuration after a ${WARMUP_SECONDS} s warm-up\n`);
    for (const [, url, headers, pid] of configs) await load(url, headers, WARMUP_SECONDS, pid);
    const rounds: Figures[][] = configs.map(() => []);
    for (let r = 0; r < ROUNDS; r++) {
      for (const [i, [, url, headers, pid]] of configs.entries()) rounds[i]!.push(await load(url, headers, ROUND_SECONDS, pid));
    }
    const [a, b, c, d] = configs.map(([name], i) => report(name, rounds[i]!)) as [Figures, Figures, Figures, Figures?];
    const beside = (name: string, x: Figures | undefined, of: (f: Figures) => number) => (x ? `   c/${name} ${(of(c) / of(x)).toFixed(2)}` : '');
    process.stdout.write(`req/s c/b ${(c.rps / b.rps).toFixed(2)}${beside('nginx', d, (f) => f.rps)}   c/a ${(c.rps / a.rps).toFixed(2)}   (target: c/b >= 0.8, p99 of c < 10 ms)\n`);
    process.stdout.write(`CPU per request c/b ${(c.cpuUs / b.cpuUs).toFixed(2)}${beside('nginx', d, (f) => f.cpuUs)}   (target: c/b <= 1.2)\n`);
    process.stdout.write(`load average while measuring: ${loadavg().map((x) => x.toFixed(2)).join(' ')} on ${availableParallelism()} cores\n`);
  } finally {
    nginx?.stop();
    for (const child of children) child.kill('SIGTERM');
    rmSync(logDir, { recursive: true, force: true });
  }
}
