// A throw-away Redis Sentinel setup for tests: a master, one replica and one sentinel watching the
// master set `mymaster` (quorum 1), each a redis-server on a free loopback port, configs in a temporary directory.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from './ports.js';

export interface RedisSentinel {
  /** The sentinel as REDIS_URL takes it with REDIS_MODE=sentinel. */
  url: string;
  name: string;
  stop(): Promise<void>;
}

async function answers(port: number, ...command: string[]): Promise<unknown> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const c = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    try {
      await c.connect();
      return await c.call(command[0]!, ...command.slice(1));
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 100));
    } finally {
      c.disconnect();
    }
  }
}

export async function startRedisSentinel(): Promise<RedisSentinel> {
  const dir = mkdtempSync(join(tmpdir(), 'fleet-redis-sentinel-'));
  const [master, replica, sentinel] = [await freePort(), await freePort(), await freePort()];
  const children: ChildProcess[] = [];
  const server = (args: string[]) => children.push(spawn('redis-server', args, { stdio: 'ignore' }));
  const common = ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir];
  server(['--port', String(master), ...common]);
  server(['--port', String(replica), '--replicaof', '127.0.0.1', String(master), ...common]);
  const conf = join(dir, 'sentinel.conf');
  writeFileSync(conf, `port ${sentinel}\nbind 127.0.0.1\ndir ${dir}\nsentinel monitor mymaster 127.0.0.1 ${master} 1\nsentinel down-after-milliseconds mymaster 2000\n`);
  server([conf, '--sentinel']);
  const stop = async () => {
    await Promise.all(children.map((c) => (c.exitCode !== null ? undefined : new Promise<void>((resolve) => (c.once('exit', () => resolve()), c.kill('SIGKILL'))))));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await answers(master, 'PING');
    await answers(replica, 'PING');
    await answers(sentinel, 'SENTINEL', 'GET-MASTER-ADDR-BY-NAME', 'mymaster');
  } catch (err) {
    await stop();
    throw err;
  }
  return { url: `redis://127.0.0.1:${sentinel}`, name: 'mymaster', stop };
}
