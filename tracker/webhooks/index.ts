// Outbound webhooks in a running tracker: the delivery worker, with its sender, started and
// stopped with the process. (Deliveries are enqueued by enqueueDeliveries in outbox.ts, an event
// listener run in the transaction that stores the events.) Finished deliveries past
// WEBHOOK_LOG_RETENTION_DAYS are purged once an hour, in one tracker.
import type { TrackerConfig } from '../../shared/config.js';
import type { TrackerContext } from '../context.js';
import { purgeFinished } from './deliveries.js';
import { WebhookSender } from './sender.js';
import { WebhookWorker } from './worker.js';

const PURGE_EVERY_MS = 3_600_000;

export interface Webhooks {
  worker: WebhookWorker;
  /** Graceful stop: requests in flight may finish until the deadline (ms since the epoch). */
  close(deadline?: number): Promise<void>;
}

/** A sender obeying the target settings; `timeoutMs` shortens its 15 s wait for an answer. */
export function webhookSender(config: Pick<TrackerConfig, 'WEBHOOK_ALLOW_HTTP' | 'WEBHOOK_ALLOW_PRIVATE'>, timeoutMs?: number): WebhookSender {
  return new WebhookSender({ allowHttp: config.WEBHOOK_ALLOW_HTTP, allowPrivate: config.WEBHOOK_ALLOW_PRIVATE, ...(timeoutMs ? { timeoutMs } : {}) });
}

export async function startWebhooks(ctx: TrackerContext): Promise<Webhooks> {
  const { config } = ctx;
  const sender = webhookSender(config);
  const worker = new WebhookWorker(ctx.db, sender, ctx.logger, {
    retrySchedule: config.WEBHOOK_RETRY_SCHEDULE,
    disableAfterMs: config.WEBHOOK_DISABLE_AFTER,
    concurrency: config.WEBHOOK_CONCURRENCY,
    metrics: ctx.metrics,
  });
  await worker.start();
  const stopPurge = ctx.jobs.every('webhook-log', PURGE_EVERY_MS, () => purgeFinished(ctx.db, config.WEBHOOK_LOG_RETENTION_DAYS));
  return {
    worker,
    async close(deadline) {
      stopPurge();
      await worker.stop(deadline);
      sender.close();
    },
  };
}
