// The embedded database's one owner: an exclusive lock file in DATA_DIR naming the process that holds
// it, taken by whoever opens PGlite there (tracker or operator CLI) and released when that process ends.
// PGlite has no lock of its own, and two processes writing one data directory lose writes or corrupt it.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export type LockRole = 'tracker' | 'admin';

/** Who holds the lock: enough to tell a live owner from a dead one whose pid was reused. */
export interface LockOwner {
  pid: number;
  role: LockRole;
  /** Start time of the process in clock ticks since boot (/proc/<pid>/stat); null where unknown. */
  started: string | null;
  /** The kernel's boot id: a lock from before a reboot is stale whatever its pid. */
  boot: string | null;
  since: string;
}

/** Refused because another live process owns the directory. */
export class DataDirInUse extends Error {
  constructor(
    readonly dataDir: string,
    readonly owner: LockOwner,
  ) {
    super(`DATA_DIR ${dataDir} is in use by ${describeOwner(owner)}`);
  }
}

export function describeOwner(owner: LockOwner): string {
  return `${owner.role === 'tracker' ? 'a tracker' : 'an admin command'} (pid ${owner.pid}, since ${owner.since})`;
}

const LOCK_FILE = 'owner.lock';

export const pgliteDir = (dataDir: string) => resolve(dataDir, 'pgdata');

/** Whether DATA_DIR already holds an embedded database (PGlite creates one where there is none). */
export const hasEmbeddedDatabase = (dataDir: string) => existsSync(join(pgliteDir(dataDir), 'PG_VERSION'));
/** The entries of DATA_DIR the product writes; only these are made private (DATA_DIR may be shared). */
const OWN_ENTRIES = ['pgdata', 'keys', LOCK_FILE];

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

function startTime(pid: number): string | null {
  const stat = readText(`/proc/${pid}/stat`);
  // The command name (field 2) may hold spaces and parentheses: count from its closing one.
  return stat ? (stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null) : null;
}

const bootId = () => readText('/proc/sys/kernel/random/boot_id')?.trim() ?? null;

function parseOwner(text: string | null): LockOwner | null {
  try {
    const owner = JSON.parse(text ?? '') as LockOwner;
    return Number.isInteger(owner.pid) && owner.pid > 0 ? owner : null;
  } catch {
    return null;
  }
}

/**
 * A pid alone is not enough: after a crash the pid may belong to another process (in a container the
 * tracker is pid 1 on every start), so the start time must match too where /proc tells it.
 */
function alive(owner: LockOwner): boolean {
  const boot = bootId();
  if (owner.boot && boot && owner.boot !== boot) return false;
  try {
    process.kill(owner.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false; // EPERM: alive, another user's
  }
  const started = startTime(owner.pid);
  return owner.started === null || started === null || started === owner.started;
}

const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** The process's lock on one DATA_DIR. Released by release(), and at exit however the process ends. */
export class DataDirLock {
  private released = false;
  private readonly onExit = () => this.release();
  /**
   * A signal nobody else handles would end the process without `exit`: release, then re-raise it to
   * end as it would have. A process that handles it (the tracker) closes the database and exits.
   */
  private readonly onSignal = (signal: NodeJS.Signals) => {
    if (process.listenerCount(signal) > 1) return;
    this.release();
    process.kill(process.pid, signal);
  };

  constructor(
    readonly dataDir: string,
    private readonly path: string,
    private readonly content: string,
    /** The dead owner whose stale lock this one replaced, if any. */
    readonly replaced: LockOwner | null,
  ) {
    process.once('exit', this.onExit);
    for (const signal of SIGNALS) process.on(signal, this.onSignal);
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    process.off('exit', this.onExit);
    for (const signal of SIGNALS) process.off(signal, this.onSignal);
    if (readText(this.path) === this.content) unlinkSync(this.path);
  }
}

/**
 * Takes DATA_DIR for this process, or tells who holds it. The lock file is written whole under a
 * temporary name and published with link(), which fails if the lock exists: a reader never sees a
 * half-written owner, and link is atomic on local and network file systems alike.
 */
export function tryLockDataDir(dataDir: string, role: LockRole): DataDirLock | LockOwner {
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, LOCK_FILE);
  const me: LockOwner = { pid: process.pid, role, started: startTime(process.pid), boot: bootId(), since: new Date().toISOString() };
  const content = JSON.stringify(me);
  const draft = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(draft, content, { mode: 0o600 });
  try {
    let replaced: LockOwner | null = null;
    for (;;) {
      try {
        linkSync(draft, path);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        const text = readText(path);
        const owner = parseOwner(text);
        if (owner && alive(owner)) return owner;
        const taker = takeOver(path, draft, text);
        if (taker) return taker;
        replaced = owner ?? replaced;
        continue;
      }
      return new DataDirLock(dir, path, content, replaced);
    }
  } finally {
    unlinkSync(draft);
  }
}

/**
 * Takes DATA_DIR for a tracker. Refused at once while another tracker holds it; while an admin command
 * does (the operator CLI finishes in seconds), waits up to waitMs, telling onWait once.
 */
export async function lockDataDirForTracker(dataDir: string, waitMs: number, onWait: (owner: LockOwner) => void): Promise<DataDirLock> {
  const deadline = Date.now() + waitMs;
  for (let waited = false; ; waited = true) {
    const lock = tryLockDataDir(dataDir, 'tracker');
    if (lock instanceof DataDirLock) return lock;
    if (lock.role === 'tracker' || Date.now() >= deadline) throw new DataDirInUse(resolve(dataDir), lock);
    if (!waited) onWait(lock);
    await new Promise((res) => setTimeout(res, RETRY_MS));
  }
}

/** How often a process waiting for DATA_DIR tries again. */
export const RETRY_MS = 200;

/**
 * Removes a stale lock. Two processes may find the same stale lock; a second lock file, held only for
 * these few calls, lets one of them remove it, so neither can remove the fresh lock the other has
 * just taken. Returns the live process taking over meanwhile, if there is one.
 */
function takeOver(path: string, draft: string, stale: string | null): LockOwner | null {
  const guard = `${path}.takeover`;
  try {
    linkSync(draft, guard);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const taker = parseOwner(readText(guard));
    if (taker && alive(taker)) return taker;
    unlinkIfPresent(guard); // its owner died inside these few calls
    return null;
  }
  try {
    if (readText(path) === stale) unlinkIfPresent(path);
  } finally {
    unlinkSync(guard);
  }
  return null;
}

function unlinkIfPresent(path: string): void {
  try {
    unlinkSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

/**
 * New files private to the service's user (umask), and the ones already there made so: PGlite writes
 * the files of a new database with mode 0666 whatever the umask, and earlier versions left them so.
 */
export function makeDataDirPrivate(dataDir: string): void {
  const dir = resolve(dataDir);
  process.umask(0o077);
  try {
    chmodSync(dir, lstatSync(dir).mode & 0o700);
  } catch (err) {
    // DATA_DIR itself may belong to someone else (a shared mount): its contents are still ours.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') throw err;
  }
  for (const entry of OWN_ENTRIES) chmodTree(join(dir, entry));
}

function chmodTree(path: string): void {
  let stat;
  try {
    stat = lstatSync(path);
  } catch {
    return;
  }
  if (stat.isSymbolicLink()) return;
  if ((stat.mode & 0o077) !== 0) chmodSync(path, stat.mode & 0o700);
  if (stat.isDirectory()) for (const name of readdirSync(path)) chmodTree(join(path, name));
}
