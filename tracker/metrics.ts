// The tracker's Prometheus registry and the metrics its parts bump: API requests by route template,
// command outcomes, the outbound webhook deliveries, and dashboard forms refused for too many
// attempts. The device side registers its own (ingest/metrics.ts). Served on TRACKER_METRICS_PORT
// by the process (tracker/main.ts).
import { Counter, Gauge, type Histogram, type Registry } from 'prom-client';
import { requestHistogram, serviceRegistry, type RequestLabels } from '../shared/metrics.js';
import type { CommandStatus } from './commands/repository.js';
import { JOBS, type JobName } from './storage/periodic.js';

/** Why an outbound webhook attempt failed. */
export type WebhookFailureReason = 'status' | 'timeout' | 'network';

export interface TrackerMetrics {
  registry: Registry;
  requests: Histogram<RequestLabels>;
  /** Commands moved to a status: queued (API), sent (to the device), delivered (answered), expired, failed. */
  commands: Counter<'status'>;
  /** Outbound webhook attempts the receiver answered with a 2xx. */
  webhookDeliveries: Counter;
  /** Outbound webhook attempts that failed: a non-2xx answer (`status`), no answer in time, or a network error. */
  webhookFailures: Counter<'reason'>;
  /** Webhook deliveries waiting to be attempted (new or waiting for a retry), as last counted by the sender. */
  webhookBacklog: Gauge;
  /** Dashboard forms refused with 429 for too many attempts: sign_in, set_password. */
  dashboardThrottled: Counter<'form'>;
  /** Periodic jobs this process ran (each runs in one tracker per period, storage/periodic.ts). */
  scheduledJobRuns: Counter<'job'>;
}

export function trackerMetrics(): TrackerMetrics {
  const registry = serviceRegistry('tracker');
  const commands = new Counter<'status'>({
    name: 'fleet_commands_total',
    help: 'Commands moved to each status: queued, sent, delivered, expired, failed',
    labelNames: ['status'],
    registers: [registry],
  });
  for (const status of ['queued', 'sent', 'delivered', 'expired', 'failed'] satisfies CommandStatus[]) commands.inc({ status }, 0);
  const webhookFailures = new Counter<'reason'>({
    name: 'fleet_webhook_failures_total',
    help: 'Outbound webhook attempts that failed, by reason: status (non-2xx answer), timeout, network',
    labelNames: ['reason'],
    registers: [registry],
  });
  for (const reason of ['status', 'timeout', 'network'] satisfies WebhookFailureReason[]) webhookFailures.inc({ reason }, 0);
  const dashboardThrottled = new Counter<'form'>({
    name: 'fleet_dashboard_throttled_total',
    help: 'Dashboard forms refused for too many attempts, by form: sign_in, set_password',
    labelNames: ['form'],
    registers: [registry],
  });
  for (const form of ['sign_in', 'set_password']) dashboardThrottled.inc({ form }, 0);
  const scheduledJobRuns = new Counter<'job'>({
    name: 'fleet_scheduled_job_runs_total',
    help: 'Periodic jobs this tracker ran, by job: each runs in one tracker per period, whichever claims it',
    labelNames: ['job'],
    registers: [registry],
  });
  for (const job of JOBS satisfies readonly JobName[]) scheduledJobRuns.inc({ job }, 0);
  return {
    registry,
    requests: requestHistogram(registry),
    commands,
    webhookDeliveries: new Counter({ name: 'fleet_webhook_deliveries_total', help: 'Outbound webhook attempts answered with a 2xx', registers: [registry] }),
    webhookFailures,
    webhookBacklog: new Gauge({ name: 'fleet_webhook_backlog', help: 'Webhook deliveries waiting to be attempted (new or waiting for a retry)', registers: [registry] }),
    dashboardThrottled,
    scheduledJobRuns,
  };
}
