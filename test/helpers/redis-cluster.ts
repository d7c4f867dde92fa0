// A throw-away Redis Cluster for tests: three masters (and `replicas` replicas each) as redis-server
// processes on free loopback ports, each with its own config file in a temporary directory, joined
// with `redis-cli --cluster create`. failover(key) hands the slot of a key to its master's replica
// (CLUSTER FAILOVER on the replica: coordinated, no write acknowledged by the old master is lost).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { freePort } from './ports.js';

const run = promisify(execFile);
const MASTERS = 3;
const READY_MS = 20_000;

export interface ClusterNode {
  port: number;
  url: string;
}

export interface RedisCluster {
  /** The seed nodes as REDIS_URL takes them with REDIS_MODE=cluster: comma-separated. */
  url: string;
  nodes: ClusterNode[];
  stop(): Promise<void>;
  /** Makes the replica of the master serving the key's slot its master; resolves once it serves it. */
  failover?(key: string): Promise<void>;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + READY_MS;
  for (;;) {
    const got = await probe().catch(() => undefined);
    if (got !== undefined) return got;
    if (Date.now() > deadline) throw new Error(`Redis Cluster: ${what} not within ${READY_MS} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function ask<T>(port: number, ...args: string[]): Promise<T> {
  const c = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0 });
  try {
    await c.connect();
    return (await c.call(args[0]!, ...args.slice(1))) as T;
  } finally {
    c.disconnect();
  }
}

/** The ports of the master serving a slot and of its replicas, master first (CLUSTER SLOTS). */
async function slotOwners(port: number, slot: number): Promise<number[]> {
  const ranges = await ask<[number, number, ...[string, number][]][]>(port, 'CLUSTER', 'SLOTS');
  const range = ranges.find(([from, to]) => slot >= from && slot <= to);
  if (!range) throw new Error(`slot ${slot} is not served`);
  const [, , ...owners] = range;
  return owners.map(([, ownerPort]) => ownerPort);
}

export async function startRedisCluster(options: { replicas?: number } = {}): Promise<RedisCluster> {
  const replicas = options.replicas ?? 0;
  const dir = mkdtempSync(join(tmpdir(), 'fleet-redis-cluster-'));
  const children: ChildProcess[] = [];
  const nodes: ClusterNode[] = [];
  const stop = async () => {
    await Promise.all(
      children.map((c) => (c.exitCode !== null || c.signalCode !== null ? undefined : new Promise<void>((resolve) => (c.once('exit', () => resolve()), c.kill('SIGKILL'))))),
    );
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < MASTERS * (1 + replicas); i++) {
      // The cluster bus gets a port of its own: port + 10000 (the default) may not exist above 55535.
      const [port, bus] = [await freePort(), await freePort()];
      const child = spawn(
        'redis-server',
        ['--port', String(port), '--cluster-port', String(bus), '--bind', '127.0.0.1', '--cluster-enabled', 'yes', '--cluster-config-file', join(dir, `nodes-${port}.conf`), '--cluster-node-timeout', '2000', '--save', '', '--appendonly', 'no', '--dir', dir],
        { stdio: 'ignore' },
      );
      children.push(child);
      nodes.push({ port, url: `redis://127.0.0.1:${port}` });
    }
    for (const { port } of nodes) await until(`node ${port} answering`, async () => ((await ask(port, 'PING')) === 'PONG' ? true : undefined));
    await run('redis-cli', ['--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-replicas', String(replicas), '--cluster-yes']);
    for (const { port } of nodes) await until(`node ${port} seeing the cluster ok`, async () => ((await ask<string>(port, 'CLUSTER', 'INFO')).includes('cluster_state:ok') ? true : undefined));
    // Replicas show in CLUSTER SLOTS once their master knows them.
    const everySlotReplicated = async (port: number) => (await ask<unknown[][]>(port, 'CLUSTER', 'SLOTS')).every((range) => range.length - 3 >= replicas);
    for (const { port } of nodes) await until(`node ${port} seeing every replica`, async () => ((await everySlotReplicated(port)) ? true : undefined));
  } catch (err) {
    await stop();
    throw err;
  }

  const cluster: RedisCluster = { url: nodes.map((n) => n.url).join(','), nodes, stop };
  if (replicas > 0) {
    cluster.failover = async (key: string) => {
      const slot = await ask<number>(nodes[0]!.port, 'CLUSTER', 'KEYSLOT', key);
      const [master, replica] = await slotOwners(nodes[0]!.port, slot);
      if (replica === undefined) throw new Error(`the master on ${master} serving slot ${slot} has no replica`);
      await ask(replica, 'CLUSTER', 'FAILOVER');
      await until(`${replica} serving slot ${slot}`, async () => {
        for (const { port } of nodes) if ((await slotOwners(port, slot))[0] !== replica) return undefined;
        return true;
      });
    };
  }
  return cluster;
}
