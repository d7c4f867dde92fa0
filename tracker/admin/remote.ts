// Runs an operator command through a running tracker's internal endpoint (the first of TRACKER_URL),
// or takes the embedded database's lock when no tracker runs, so the CLI opens the data itself only
// when nobody else has it.
import { resolve } from 'node:path';
import { trackerUrls, type TrackerConfig } from '../../shared/config.js';
import { ApiError, type ErrorCode } from '../../shared/errors.js';
import { INTERNAL_HEADERS } from '../../shared/internal.js';
import { loadTrackerKeys } from '../boot.js';
import { DataDirLock, describeOwner, RETRY_MS, tryLockDataDir, type LockOwner } from '../storage/data-dir-lock.js';

export type RemoteResult = { reached: true; result: unknown } | { reached: false };

const NOT_RUNNING = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH']);

/** No tracker is listening (localhost may fail on ::1 and 127.0.0.1 at once: an AggregateError). */
function refused(err: unknown): boolean {
  const cause = (err as { cause?: { code?: string; errors?: { code?: string }[] } }).cause;
  const codes = [cause?.code, ...(cause?.errors ?? []).map((e) => e.code)];
  return codes.some((c) => c !== undefined && NOT_RUNNING.has(c));
}

export async function callTracker(config: TrackerConfig, command: string, args: Record<string, unknown>): Promise<RemoteResult> {
  const { gatewaySecret } = loadTrackerKeys(config);
  let res: Response;
  try {
    res = await fetch(new URL('/internal/admin', trackerUrls(config.TRACKER_URL)[0]), {
      method: 'POST',
      headers: { 'content-type': 'application/json', [INTERNAL_HEADERS.secret]: gatewaySecret },
      body: JSON.stringify({ command, args }),
      // At least 30 s: `webhooks test` waits for the receiver, up to its 15 s timeout.
      signal: AbortSignal.timeout(Math.max(config.UPSTREAM_TIMEOUT_MS, 30_000)),
    });
  } catch (err) {
    if (refused(err)) return { reached: false };
    throw err;
  }
  const body = (await res.json()) as { error?: string; code?: ErrorCode };
  if (!res.ok) throw new ApiError(body.code ?? 'internal', body.error ?? `tracker answered ${res.status}`);
  return { reached: true, result: body };
}

function waiting(owner: LockOwner, dir: string, config: TrackerConfig): string {
  return owner.role === 'tracker'
    ? `waiting for the tracker at ${dir} (pid ${owner.pid}) to finish starting and answer at ${config.TRACKER_URL}…`
    : `waiting for ${describeOwner(owner)} to finish with ${dir}…`;
}

/**
 * The tracker's answer when it runs; else DATA_DIR's lock, for the caller to open the data itself.
 * While another process holds the lock (a tracker still migrating or seeding before it listens, or
 * another admin command) it waits, asking the tracker again, up to DATA_DIR_LOCK_WAIT_SECONDS; then it
 * fails without writing anything rather than open files another process is writing.
 */
export async function callTrackerOrLock(config: TrackerConfig, command: string, args: Record<string, unknown>): Promise<{ reached: true; result: unknown } | { reached: false; lock: DataDirLock }> {
  const dir = resolve(config.DATA_DIR);
  const deadline = Date.now() + config.DATA_DIR_LOCK_WAIT_SECONDS * 1000;
  for (let waited = false; ; waited = true) {
    const remote = await callTracker(config, command, args);
    if (remote.reached) return remote;
    const lock = tryLockDataDir(dir, 'admin');
    if (lock instanceof DataDirLock) return { reached: false, lock };
    if (Date.now() >= deadline) {
      throw new Error(`${dir} is held by ${describeOwner(lock)} and no tracker answered at ${config.TRACKER_URL} within ${config.DATA_DIR_LOCK_WAIT_SECONDS} s; nothing was written`);
    }
    if (!waited) process.stderr.write(`${waiting(lock, dir, config)}\n`);
    await new Promise((res) => setTimeout(res, RETRY_MS));
  }
}
