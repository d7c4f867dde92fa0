// A throw-away redis-server of the test's own, on a free loopback port, that a test can kill and
// bring back (same port, empty: as after a crash, with its script cache gone too), or freeze (SIGSTOP:
// connections stay open, nothing answers) and thaw.
import { spawn, type ChildProcess } from 'node:child_process';
import { Socket } from 'node:net';
import { freePort } from './ports.js';

export interface RedisServer {
  port: number;
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  freeze(): void;
  thaw(): void;
}

function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = new Socket();
    s.setTimeout(500);
    s.once('connect', () => s.write('PING\r\n'));
    s.once('data', (d) => (s.destroy(), resolve(d.toString().startsWith('+PONG'))));
    s.once('error', () => resolve(false));
    s.once('timeout', () => (s.destroy(), resolve(false)));
    s.connect(port, '127.0.0.1');
  });
}

export async function startRedisServer(): Promise<RedisServer> {
  const port = await freePort();
  let child: ChildProcess | null = null;

  async function start(): Promise<void> {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    const deadline = Date.now() + 10_000;
    while (!(await answersPing(port))) {
      if (Date.now() > deadline) throw new Error(`redis-server did not answer on port ${port}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async function stop(): Promise<void> {
    const c = child;
    child = null;
    if (!c || c.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      c.once('exit', () => resolve());
      c.kill('SIGKILL');
    });
  }

  await start();
  return { port, url: `redis://127.0.0.1:${port}`, stop, start, freeze: () => child?.kill('SIGSTOP'), thaw: () => child?.kill('SIGCONT') };
}
