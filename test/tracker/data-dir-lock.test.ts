// The embedded database has one owner: trackers and the operator CLI on one DATA_DIR, as real
// processes (tsx), started the way an operator's start-up script would start them.
import { describe, expect, test, afterAll } from '@jest/globals';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, type CliResult } from '../helpers/cli.js';
import { NO_DEVICE_PORTS, freePort } from '../helpers/ports.js';
import { startService, stopAllServices } from '../helpers/processes.js';
import { DataDirLock, tryLockDataDir, type LockOwner } from '../../tracker/storage/data-dir-lock.js';
import { openDb } from '../../tracker/storage/open.js';

afterAll(() => stopAllServices());

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'fleet-lock-'));
  dirs.push(dir);
  return dir;
}

/** A tracker's settings on DATA_DIR, its HTTP port fixed so the CLI can be pointed at it beforehand. */
async function trackerEnv(dir: string, extra: Record<string, string> = {}) {
  const port = await freePort();
  const env = {
    ...NO_DEVICE_PORTS,
    DATA_DIR: dir,
    TRACKER_HTTP_PORT: String(port),
    DEVICE_PORT: String(await freePort()),
    OSMAND_PORT: String(await freePort()),
    LOG_LEVEL: 'info',
    ...extra,
  };
  return { env, cli: { DATA_DIR: dir, TRACKER_URL: `http://127.0.0.1:${port}` } };
}

const startTracker = (env: Record<string, string>) => startService('tracker/main.ts', env, { timeoutMs: 60_000 });
const sleep = (ms: number) => new Promise((res) => setTimeout(res, ms));

describe('one owner for the embedded database', () => {
  test('admin commands run while the tracker starts are kept, and the demo is not seeded over them', async () => {
    const dir = dataDir();
    const { env, cli } = await trackerEnv(dir);
    const tracker = startTracker(env);
    // As a start-up script would: at once, and a moment later.
    const runs = await Promise.all(
      [0, 300, 1000].map(async (delay, i) => {
        await sleep(delay);
        return runCli(['accounts', 'create', '--name', `Early ${i}`, '--json'], cli);
      }),
    );
    const running = await tracker;
    for (const r of runs) expect(r).toMatchObject({ code: 0 });
    const ids = runs.map((r) => (JSON.parse(r.stdout) as { id: string }).id);
    for (const id of ids) {
      const listed = await runCli(['tokens', 'list', '--account', id, '--json'], cli);
      expect(listed).toMatchObject({ code: 0, stderr: '' });
    }
    await running.stop();
    expect(await running.exited).toEqual({ code: 0, signal: null });
    expect(running.logs.join('\n')).not.toMatch(/Aborted|RuntimeError/);

    // The directory opens again (no tracker now) and holds every account. A demo fleet is there only
    // if the tracker found the database empty: created before the operator's accounts, never after.
    const db = await openDb({ dataDir: dir });
    try {
      const names = (await db.query<{ name: string }>('SELECT name FROM accounts ORDER BY created_at, id')).map((a) => a.name);
      expect(names.filter((n) => n !== 'Demo fleet').sort()).toEqual(['Early 0', 'Early 1', 'Early 2']);
      expect(names.indexOf('Demo fleet')).toBeLessThanOrEqual(0);
    } finally {
      await db.close();
    }
  }, 120_000);

  test('a second tracker on the same DATA_DIR refuses to start, naming the directory and the owner', async () => {
    const dir = dataDir();
    const first = await startTracker((await trackerEnv(dir, { DEMO: 'false' })).env);
    const { env } = await trackerEnv(dir, { DEMO: 'false' });
    const second = startService('tracker/main.ts', env, { timeoutMs: 60_000 });
    await expect(second).rejects.toThrow(new RegExp(`DATA_DIR ${dir} is in use by a tracker \\(pid ${first.pid},`));
    // The first one still serves, and its data is intact.
    const cli = { DATA_DIR: dir, TRACKER_URL: `http://127.0.0.1:${first.port}` };
    expect(await runCli(['accounts', 'create', '--name', 'Still here', '--json'], cli)).toMatchObject({ code: 0 });
    await first.stop();
    expect(existsSync(join(dir, 'owner.lock'))).toBe(false); // released by the graceful stop
  }, 120_000);

  test('the lock of a killed tracker is taken over by the next one, which then owns the directory', async () => {
    const dir = dataDir();
    const { env, cli } = await trackerEnv(dir, { DEMO: 'false' });
    const killed = await startTracker(env);
    const { id } = JSON.parse((await runCli(['accounts', 'create', '--name', 'Before the crash', '--json'], cli)).stdout) as { id: string };
    process.kill(killed.pid, 'SIGKILL');
    await killed.exited;

    const next = await startTracker(env);
    expect(next.logs.join('\n')).toContain(`"previousPid":${killed.pid}`);
    expect(await runCli(['tokens', 'list', '--account', id, '--json'], cli)).toMatchObject({ code: 0 });
    const third = startService('tracker/main.ts', (await trackerEnv(dir, { DEMO: 'false' })).env, { timeoutMs: 60_000 });
    await expect(third).rejects.toThrow(new RegExp(`is in use by a tracker \\(pid ${next.pid},`));
    await next.stop();
  }, 120_000);

  test('the CLI waits for a process holding DATA_DIR, then opens it and says it created a database', async () => {
    const dir = dataDir();
    const held = tryLockDataDir(dir, 'admin') as DataDirLock;
    expect(held).toBeInstanceOf(DataDirLock);
    const cli = { DATA_DIR: dir, TRACKER_URL: `http://127.0.0.1:${await freePort()}` };
    // The lock is released once the CLI says it waits for it (a CLI that starts slowly on a loaded
    // machine would otherwise find it free already), and a moment later. A CLI that ends without
    // saying so fails the assertions below rather than the test's timeout.
    let run!: Promise<CliResult>;
    const waiting = new Promise<void>((said) => {
      run = runCli(['accounts', 'create', '--name', 'Patient', '--json'], cli, undefined, (soFar) => soFar.includes('waiting for an admin command') && said());
    });
    await Promise.race([waiting, run]);
    await sleep(1000);
    expect(existsSync(join(dir, 'pgdata'))).toBe(false); // nothing opened while the lock is held
    held.release();
    const r = await run;
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`waiting for an admin command (pid ${process.pid}`);
    expect(r.stderr).toContain(`created a new embedded database in ${join(dir, 'pgdata')}`);
    // The next command finds the database and says nothing about it.
    const listed = await runCli(['tokens', 'list', '--account', (JSON.parse(r.stdout) as { id: string }).id], cli);
    expect(listed).toMatchObject({ code: 0, stderr: '' });
  }, 60_000);

  test('the CLI gives up on a tracker that holds DATA_DIR but never answers, writing nothing', async () => {
    const dir = dataDir();
    // A live process (this one) recorded as a tracker that is still starting.
    const owner: LockOwner = { pid: process.pid, role: 'tracker', started: null, boot: null, since: new Date().toISOString() };
    writeFileSync(join(dir, 'owner.lock'), JSON.stringify(owner));
    const r = await runCli(['accounts', 'create', '--name', 'Lost', '--json'], { DATA_DIR: dir, TRACKER_URL: `http://127.0.0.1:${await freePort()}`, DATA_DIR_LOCK_WAIT_SECONDS: '2' });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`waiting for the tracker at ${dir} (pid ${process.pid}) to finish starting`);
    expect(r.stderr).toMatch(/held by a tracker .* no tracker answered at http:\/\/127\.0\.0\.1:\d+ within 2 s; nothing was written/);
    expect(existsSync(join(dir, 'pgdata'))).toBe(false);
  }, 30_000);

  test('after a tracker ran on an existing DATA_DIR, no file in it is open to other users', async () => {
    const dir = dataDir();
    chmodSync(dir, 0o755);
    const { env, cli } = await trackerEnv(dir, { DEMO: 'false' });
    // A directory made under a permissive umask, as earlier versions left it.
    const first = await startTracker(env);
    await first.stop();
    for (const path of walk(dir)) chmodSync(path, lstatSync(path).isDirectory() ? 0o777 : 0o666);

    const tracker = await startTracker(env);
    expect(await runCli(['accounts', 'create', '--name', 'Private', '--json'], cli)).toMatchObject({ code: 0 });
    await tracker.stop();
    const open = walk(dir).filter((p) => (lstatSync(p).mode & 0o077) !== 0);
    expect(open).toEqual([]);
    expect(readFileSync(join(dir, 'keys', 'gateway-secret'), 'utf8').length).toBeGreaterThan(0);
  }, 120_000);
});

describe('the lock file', () => {
  const lockWith = (owner: Partial<LockOwner>) => {
    const dir = dataDir();
    writeFileSync(join(dir, 'owner.lock'), JSON.stringify({ pid: process.pid, role: 'tracker', started: null, boot: null, since: '2026-01-01T00:00:00.000Z', ...owner }));
    return dir;
  };

  test.each<[string, Partial<LockOwner>]>([
    ['a dead pid', { pid: 2 ** 22 + 1 }],
    ['a live pid that now belongs to another process (start time differs)', { started: '1' }],
    ['a lock from before a reboot', { boot: 'another-boot' }],
  ])('a lock naming %s is taken over', (_name, owner) => {
    const dir = lockWith(owner);
    const lock = tryLockDataDir(dir, 'tracker');
    expect(lock).toBeInstanceOf(DataDirLock);
    expect((lock as DataDirLock).replaced).toMatchObject({ pid: owner.pid ?? process.pid });
    (lock as DataDirLock).release();
    expect(existsSync(join(dir, 'owner.lock'))).toBe(false);
  });

  test('a process that does not handle SIGTERM releases the lock and still dies of the signal', async () => {
    const dir = dataDir();
    const module = join(process.cwd(), 'tracker/storage/data-dir-lock.ts');
    const { NODE_OPTIONS: _jest, ...env } = process.env;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', `import { tryLockDataDir } from ${JSON.stringify(module)}; tryLockDataDir(${JSON.stringify(dir)}, 'admin'); console.log('held'); setInterval(() => {}, 1000);`], { env });
    await new Promise((res) => child.stdout.once('data', res));
    expect(existsSync(join(dir, 'owner.lock'))).toBe(true);
    const exited = new Promise((res) => child.once('exit', (code, signal) => res({ code, signal })));
    child.kill('SIGTERM');
    expect(await exited).toEqual({ code: null, signal: 'SIGTERM' });
    expect(existsSync(join(dir, 'owner.lock'))).toBe(false);
  });

  test('a lock of a live process is respected, and only its holder removes it', () => {
    const dir = dataDir();
    const lock = tryLockDataDir(dir, 'tracker') as DataDirLock;
    expect(tryLockDataDir(dir, 'admin')).toMatchObject({ pid: process.pid, role: 'tracker' });
    lock.release();
    const next = tryLockDataDir(dir, 'admin') as DataDirLock;
    expect(next).toBeInstanceOf(DataDirLock);
    lock.release(); // a second release of the old lock leaves the new one alone
    expect(tryLockDataDir(dir, 'tracker')).toMatchObject({ role: 'admin' });
    next.release();
  });
});

function walk(path: string): string[] {
  const stat = lstatSync(path);
  return [path, ...(stat.isDirectory() ? readdirSync(path).flatMap((name) => walk(join(path, name))) : [])];
}
