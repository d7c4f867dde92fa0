// Periodic work done once across tracker processes sharing a database: each job's period is cut into
// slots of the database clock (epoch ms ÷ period), and the process whose one-statement upsert in
// scheduled_jobs first claims a slot runs the job for it; the others skip that slot. So a job runs at
// most once per slot however many trackers there are, and once per slot while any of them lives
// (each ticks every period). PGlite has one process: the same claim, always won.
import type { Logger } from '../../shared/logger.js';
import type { Db } from './db.js';

/** The jobs, named in logs and in fleet_scheduled_job_runs_total{job}. */
export const JOBS = ['partitions', 'offline-sweep', 'command-expiry', 'inbound-log', 'sign-in-sweep', 'webhook-log', 'feed-log'] as const;
export type JobName = (typeof JOBS)[number];

export interface PeriodicJobs {
  /** Runs fn every everyMs in whichever process claims the period first; resolves to the stop function. */
  every(job: JobName, everyMs: number, fn: () => Promise<unknown>): () => void;
}

/** Claims the current slot of the job: true for the one process that moved it forward. */
export async function claimSlot(db: Db, job: JobName, everyMs: number): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO scheduled_jobs (job, every_ms, slot) VALUES ($1, $2::integer, floor(extract(epoch FROM clock_timestamp()) * 1000 / $2::integer)::bigint)
     ON CONFLICT (job) DO UPDATE SET every_ms = excluded.every_ms, slot = excluded.slot, claimed_at = now()
       WHERE scheduled_jobs.slot < excluded.slot OR scheduled_jobs.every_ms <> excluded.every_ms
     RETURNING job`,
    [job, everyMs],
  );
  return rows.length > 0;
}

export function periodicJobs(db: Db, logger: Logger, ran: (job: JobName) => void): PeriodicJobs {
  return {
    every(job, everyMs, fn) {
      let running = false;
      const timer = setInterval(() => {
        if (running) return; // the last run here has not ended: this slot is left to the others
        running = true;
        claimSlot(db, job, everyMs)
          .then(async (mine) => {
            if (!mine) return;
            ran(job);
            await fn();
          })
          .catch((err: unknown) => logger.error({ err, job }, 'periodic job failed'))
          .finally(() => (running = false));
      }, everyMs).unref();
      return () => clearInterval(timer);
    },
  };
}
