// Keeps the inbound tables bounded: trims each inbound webhook's call log (age and count) and drops
// Idempotency-Keys past their 24 hours, at start-up and every ten minutes (in one tracker). Between two runs a
// webhook's log can briefly hold more than its maximum (at most what its rate limit lets in).
import type { TrackerContext } from '../context.js';
import { pruneCalls } from './calls.js';
import { forgetExpired } from './idempotency.js';

const EVERY_MS = 10 * 60_000;

export async function maintainInbound(ctx: TrackerContext): Promise<void> {
  await pruneCalls(ctx.db, { retentionDays: ctx.config.INBOUND_LOG_RETENTION_DAYS, maxCalls: ctx.config.INBOUND_LOG_MAX_CALLS });
  await forgetExpired(ctx.db);
}

/** Runs maintainInbound now and every ten minutes; resolves to the stop function. */
export async function startInboundMaintenance(ctx: TrackerContext): Promise<() => void> {
  await maintainInbound(ctx);
  return ctx.jobs.every('inbound-log', EVERY_MS, () => maintainInbound(ctx));
}
