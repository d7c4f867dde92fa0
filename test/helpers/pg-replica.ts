// A streaming replica of the machine's PostgreSQL (127.0.0.1:5432) for tests: pg_basebackup -R into a
// temporary directory, started with pg_ctl on a free loopback port as the postgres user (the server
// refuses to run as root). The primary's pg_hba.conf must admit replication connections from
// 127.0.0.1 (.ci/run adds the line). Every database of the primary, including ones created later, is
// on the replica.
import { execFile } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { ADMIN_URL } from './databases.js';
import { freePort } from './ports.js';

const run = promisify(execFile);
const BIN = '/usr/lib/postgresql/15/bin';
const CATCH_UP_MS = 30_000;

export interface Replica {
  /** The replica's URL for the primary's `postgres` database: swap the database name for another. */
  url: string;
  port: number;
  stop(): Promise<void>;
  /** Resolves once the replica has replayed everything the primary had written when it was called. */
  waitCaughtUp(): Promise<void>;
}

/** Runs a PostgreSQL binary as the postgres user when we are root (as in CI), else as ourselves. */
function asPostgres(bin: string, args: string[]): Promise<{ stdout: string }> {
  const uid = statSync('/var/lib/postgresql').uid;
  const isRoot = process.getuid?.() === 0;
  return run(join(BIN, bin), args, { ...(isRoot ? { uid, gid: statSync('/var/lib/postgresql').gid } : {}), env: { ...process.env, HOME: '/var/lib/postgresql' } });
}

async function scalar<T>(url: string, sql: string): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql)).rows[0]!.v as T;
  } finally {
    await c.end();
  }
}

export async function startReplica(): Promise<Replica> {
  const dir = mkdtempSync(join(tmpdir(), 'fleet-replica-'));
  const data = join(dir, 'data');
  const owner = statSync('/var/lib/postgresql');
  if (process.getuid?.() === 0) chownSync(dir, owner.uid, owner.gid);
  chmodSync(dir, 0o700);
  const port = await freePort();
  try {
    // -c fast: an immediate checkpoint on the primary instead of waiting for a spread one.
    await asPostgres('pg_basebackup', ['-h', '127.0.0.1', '-p', '5432', '-U', 'postgres', '-D', data, '-X', 'stream', '-R', '-c', 'fast']);
    const conf = (file: string, text: string) => {
      writeFileSync(file, text);
      // The server reads them as the postgres user, whatever our umask made of the mode.
      chmodSync(file, 0o600);
      if (process.getuid?.() === 0) chownSync(file, owner.uid, owner.gid);
    };
    conf(join(data, 'postgresql.conf'), `port = ${port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '${dir}'\nhot_standby = on\nhba_file = '${join(dir, 'pg_hba.conf')}'\n`);
    conf(join(dir, 'pg_hba.conf'), 'local all all trust\nhost all all 127.0.0.1/32 trust\n');
    // A busy machine (other suites writing WAL the standby must replay first) can take a while.
    await asPostgres('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-w', '-t', '120', 'start']);
  } catch (err) {
    const log = existsSync(join(dir, 'log')) ? readFileSync(join(dir, 'log'), 'utf8').split('\n').slice(-10).join('\n') : '';
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`${(err as Error).message}\nthe replica's log ends:\n${log}`);
  }
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let stopped = false;
  return {
    url,
    port,
    async stop() {
      if (stopped) return;
      stopped = true;
      await asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
    async waitCaughtUp() {
      const target = await scalar<string>(ADMIN_URL, 'SELECT pg_current_wal_lsn()::text AS v');
      const deadline = Date.now() + CATCH_UP_MS;
      while (!(await scalar<boolean>(url, `SELECT coalesce(pg_last_wal_replay_lsn() >= '${target}'::pg_lsn, false) AS v`))) {
        if (Date.now() > deadline) throw new Error(`the replica on port ${port} did not replay up to ${target} within ${CATCH_UP_MS} ms`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}
