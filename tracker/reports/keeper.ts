// Computes the reports' ended days ahead of the reports, so the first report over a month finds them
// kept: at start-up and every ten minutes, the days not kept (new, or marked by late records) of every
// unit over the last REPORTS_KEEP_DAYS (at most the position retention) between its first and last
// stored days, a batch of units at a time, paced so that it never takes more than a fifth of the time.
// One tracker process works at a time (an advisory lock; the others skip the round).
import type { TrackerContext } from '../context.js';
import type { Db } from '../storage/db.js';
import { LOCKS, withAdvisoryLockIfFree } from '../storage/lock.js';
import { keepDays, keptBefore } from './day-cache.js';

const EVERY_MS = 10 * 60_000;
const DAY_MS = 86_400_000;
/** Units per query: one pass over a batch's positions per run of days missing. */
const DEVICES_PER_BATCH = 50;
/**
 * Between batches the keeper waits this many times as long as the batch took: a backlog (a fleet's
 * history after an upgrade) is worked off at a fifth of the database's and the tracker's time, and
 * ingest keeps the rest.
 */
const IDLE_PER_BUSY = 4;

const pause = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done);
  });

/**
 * Keeps the missing days of the last `days` ended days; the device-days computed, or null when
 * another process holds the work. An aborted signal ends the round after the batch under way.
 */
export function keepReportDays(db: Db, days: number, signal?: AbortSignal, now = Date.now()): Promise<number | null> {
  return withAdvisoryLockIfFree(db, LOCKS.reportDays, async () => {
    const endDay = keptBefore(now);
    const ids = (await db.query<{ id: string }>('SELECT id FROM devices ORDER BY id')).map((r) => r.id);
    let computed = 0;
    for (let i = 0; i < ids.length && !signal?.aborted; i += DEVICES_PER_BATCH) {
      const started = performance.now();
      computed += await keepDays(db, ids.slice(i, i + DEVICES_PER_BATCH), endDay - days * DAY_MS, endDay);
      await pause((performance.now() - started) * IDLE_PER_BUSY, signal);
    }
    return computed;
  });
}

/**
 * Starts the rounds (the first at once, in the background) unless REPORTS_KEEP_DAYS is 0; returns
 * the stop function, which ends a round under way after its batch.
 */
export function startReportKeeper(ctx: TrackerContext): () => Promise<void> {
  const days = Math.min(ctx.config.REPORTS_KEEP_DAYS, ctx.config.POSITIONS_RETENTION_DAYS);
  if (days === 0) return () => Promise.resolve();
  const stop = new AbortController();
  let round: Promise<unknown> = Promise.resolve();
  const run = () => {
    round = round.then(() => (stop.signal.aborted ? null : keepReportDays(ctx.db, days, stop.signal))).catch((err: unknown) => ctx.logger.error({ err }, 'keeping report days failed'));
  };
  run();
  const timer = setInterval(run, EVERY_MS).unref();
  return async () => {
    clearInterval(timer);
    stop.abort();
    await round;
  };
}
