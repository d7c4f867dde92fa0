// Delivers the outbox. Every tracker process runs one worker; they share the rows through claims
// (FOR UPDATE SKIP LOCKED and a lease), are woken by NOTIFY when events are stored, and poll for
// retries that fall due. Claimed rows wait in a short local queue, so one claim feeds many
// attempts; attempts run concurrently, at most a quarter of the slots for one endpoint so a slow
// receiver cannot hold up the others; their outcomes are written in batches.
import type { Logger } from '../../shared/logger.js';
import type { TrackerMetrics } from '../metrics.js';
import type { Db } from '../storage/db.js';
import { claimDue, countPending, messageId, recordOutcomes, releaseClaims, type ClaimedDelivery, type Outcome, type RetryPolicy } from './deliveries.js';
import { DELIVERIES_CHANNEL } from './endpoints.js';
import { bodyFormat, renderBody } from './formats/index.js';
import type { SendResult, WebhookSender } from './sender.js';
import { signatureHeaders } from './signing.js';

export interface WorkerOptions extends RetryPolicy {
  /** Attempts in flight in this process. */
  concurrency: number;
  /** Where attempts and the backlog are counted, when the process serves metrics. */
  metrics?: Pick<TrackerMetrics, 'webhookDeliveries' | 'webhookFailures' | 'webhookBacklog'>;
}

const POLL_MS = 1000;
/**
 * How long a claimed row is ours. A row waits in the queue behind at most one round of its
 * endpoint's attempts (15 s timeouts each), then takes one: well inside a minute.
 */
const LEASE_MS = 60_000;
const FLUSH_MS = 10;
const FLUSH_ROWS = 500;
const BACKLOG_EVERY_MS = 10_000;

const add = (counts: Map<string, number>, key: string, n: number) => {
  const v = (counts.get(key) ?? 0) + n;
  if (v === 0) counts.delete(key);
  else counts.set(key, v);
};

export class WebhookWorker {
  private readonly queue: ClaimedDelivery[] = [];
  /** Attempts in flight, per endpoint and in all. */
  private readonly sending = new Map<string, number>();
  private active = 0;
  /** Rows claimed and not yet finished (queued or in flight), per endpoint. */
  private readonly held = new Map<string, number>();
  private claiming: Promise<void> | null = null;
  private again = false;
  private stopping = false;
  private outcomes: Outcome[] = [];
  private flushTimer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private idle: (() => void)[] = [];
  private timers: NodeJS.Timeout[] = [];
  private unlisten: (() => Promise<void>) | null = null;
  private readonly share: number;

  constructor(
    private readonly db: Db,
    private readonly sender: WebhookSender,
    private readonly logger: Logger,
    private readonly options: WorkerOptions,
  ) {
    this.share = Math.max(1, Math.ceil(options.concurrency / 4));
  }

  async start(): Promise<void> {
    this.unlisten = await this.db.listen(DELIVERIES_CHANNEL, () => this.kick());
    this.timers.push(setInterval(() => this.kick(), POLL_MS).unref());
    const metrics = this.options.metrics;
    if (metrics) {
      const count = () => countPending(this.db).then((n) => metrics.webhookBacklog.set(n), (err: unknown) => this.logger.error({ err }, 'webhook backlog not counted'));
      this.timers.push(setInterval(count, BACKLOG_EVERY_MS).unref());
    }
    this.kick();
  }

  /** Looks for due deliveries now (or once the current look ends). */
  kick(): void {
    if (this.stopping) return;
    if (this.claiming) {
      this.again = true;
      return;
    }
    this.claiming = this.claimWhileRoom().finally(() => {
      this.claiming = null;
      if (this.again) this.kick();
    });
  }

  /** Keeps up to two rounds of attempts claimed: 2 × share rows of one endpoint at most. */
  private async claimWhileRoom(): Promise<void> {
    try {
      for (;;) {
        this.again = false;
        const room = 2 * this.options.concurrency - this.queue.length - this.active;
        if (room <= 0 || this.stopping) return;
        const batch = await claimDue(this.db, { limit: room, perEndpoint: 2 * this.share, held: this.held, leaseMs: LEASE_MS });
        for (const d of batch) add(this.held, d.endpointId, 1);
        this.queue.push(...batch);
        this.dispatch();
        if (batch.length < room && !this.again) return;
      }
    } catch (err) {
      this.logger.error({ err }, 'webhook claim failed');
    }
  }

  /** Starts queued attempts while slots are free, oldest first among endpoints under their share. */
  private dispatch(): void {
    for (let i = 0; i < this.queue.length && this.active < this.options.concurrency && !this.stopping; ) {
      const d = this.queue[i]!;
      if ((this.sending.get(d.endpointId) ?? 0) >= this.share) {
        i++;
        continue;
      }
      this.queue.splice(i, 1);
      this.deliver(d);
    }
  }

  private deliver(d: ClaimedDelivery): void {
    this.active++;
    add(this.sending, d.endpointId, 1);
    const attemptedAt = new Date();
    void this.attempt(d)
      .then((result) => {
        if (result.ok) this.options.metrics?.webhookDeliveries.inc();
        else this.options.metrics?.webhookFailures.inc({ reason: result.failure ?? 'network' });
        if (!result.ok) this.logger.info({ endpointId: d.endpointId, deliveryId: d.id, attempt: d.attempts + 1, statusCode: result.statusCode, error: result.error }, 'webhook attempt failed');
        this.outcomes.push({ delivery: d, result, attemptedAt });
        if (this.outcomes.length >= FLUSH_ROWS) void this.flush();
        else this.flushTimer ??= setTimeout(() => void this.flush(), FLUSH_MS);
      })
      .finally(() => {
        this.active--;
        add(this.sending, d.endpointId, -1);
        add(this.held, d.endpointId, -1);
        if (this.active === 0) for (const resolve of this.idle.splice(0)) resolve();
        this.dispatch();
        this.kick();
      });
  }

  private async attempt(d: ClaimedDelivery): Promise<SendResult> {
    try {
      const body = renderBody(bodyFormat(d.format, d.url), d.payload);
      return await this.sender.send(d.url, body, signatureHeaders(d.secret, messageId(d.id), body));
    } catch (err) {
      this.logger.error({ err, deliveryId: d.id }, 'webhook attempt could not be made');
      return { ok: false, statusCode: null, error: 'internal error while sending', failure: 'network', retryAfter: null, durationMs: 0 };
    }
  }

  /** Writes the outcomes gathered so far; a failed write leaves the rows to be tried again. */
  private flush(): Promise<void> {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    const batch = this.outcomes;
    if (batch.length === 0) return this.flushing;
    this.outcomes = [];
    this.flushing = this.flushing.then(async () => {
      try {
        for (const d of await recordOutcomes(this.db, batch, this.options)) this.logger.warn(d, 'webhook endpoint disabled');
      } catch (err) {
        this.logger.error({ err, outcomes: batch.length }, 'webhook outcomes not recorded; those deliveries will be tried again');
      }
    });
    return this.flushing;
  }

  /**
   * Stops claiming, hands the queued rows back at once (another process may take them), lets the
   * attempts in flight finish and records them. Requests still running at the deadline are cut:
   * they are recorded as failed attempts and tried again (the receiver may have seen them; it
   * recognises the repeat by its webhook-id).
   */
  async stop(deadline = Number.POSITIVE_INFINITY): Promise<void> {
    this.stopping = true;
    for (const t of this.timers) clearInterval(t);
    await this.unlisten?.();
    await this.claiming;
    const unsent = this.queue.splice(0);
    if (unsent.length > 0) await releaseClaims(this.db, unsent.map((d) => d.id)).catch((err: unknown) => this.logger.error({ err }, 'webhook claims not released; they return when their lease ends'));
    if (this.active > 0) {
      const idle = new Promise<void>((resolve) => this.idle.push(resolve));
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), Math.max(0, deadline - Date.now()))));
      if (await Promise.race([idle.then(() => false), late])) {
        this.sender.close();
        await idle;
      }
      clearTimeout(timer);
    }
    await this.flush();
  }
}
