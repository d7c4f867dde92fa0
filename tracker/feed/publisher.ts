// Publishing to the live feed: what was committed (positions, events, command status changes) is
// handed in without waiting and written to the retained log in batches, off the ingest path, each
// batch in its own short transaction under one advisory lock, so ids become visible in the order
// they were given across every tracker process: a reader that has seen id N never later finds a
// smaller one. Every batch is announced with NOTIFY; the log keeps STREAM_RETENTION_SECONDS.
import type { Logger } from '../../shared/logger.js';
import { presentCommand } from '../commands/present.js';
import { commandsByIds } from '../commands/repository.js';
import { presentEvent } from '../events/present.js';
import type { RaisedEvent } from '../events/types.js';
import type { DevicePosition } from '../positions/repository.js';
import type { Db } from '../storage/db.js';
import { FEED_CHANNEL, FEED_LOCK, presentPosition } from './entries.js';

export interface FeedPublisherOptions {
  /** Longest an entry waits for its batch (ms). */
  maxDelayMs: number;
  retentionSeconds: number;
}

interface Pending {
  positions: DevicePosition[];
  events: RaisedEvent[];
  commandIds: string[];
}

/** How often entries past their retention are removed. */
const PRUNE_EVERY_MS = 30_000;
/** A batch this large is written at once; more waits for the next one. */
const MAX_BATCH = 5000;

const empty = (): Pending => ({ positions: [], events: [], commandIds: [] });

export class FeedPublisher {
  private pending = empty();
  private size = 0;
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  private readonly pruner: NodeJS.Timeout;
  /** Entries written to the log since start. */
  published = 0;
  /** Entries lost because the database refused their batch (logged). */
  failed = 0;

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
    private readonly options: FeedPublisherOptions,
  ) {
    this.pruner = setInterval(() => {
      this.prune().catch((err: unknown) => logger.error({ err }, 'pruning the live feed log failed'));
    }, PRUNE_EVERY_MS).unref();
  }

  /** Stored positions (after their batch committed). */
  positions(rows: readonly DevicePosition[]): void {
    for (const r of rows) this.pending.positions.push(r);
    this.added(rows.length);
  }

  /** Stored events (after their transaction committed). */
  events(events: readonly RaisedEvent[]): void {
    for (const e of events) this.pending.events.push(e);
    this.added(events.length);
  }

  /** Commands whose status changed (committed): published as they stand when the batch is written. */
  commands(ids: readonly string[]): void {
    for (const id of ids) this.pending.commandIds.push(id);
    this.added(ids.length);
  }

  /** Writes what is pending and waits for every batch under way. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.pending;
    if (this.size > 0) {
      this.pending = empty();
      this.size = 0;
      this.writing = this.writing.then(() => this.write(batch));
    }
    await this.writing;
  }

  async close(): Promise<void> {
    clearInterval(this.pruner);
    await this.flush();
  }

  private added(n: number): void {
    if (n === 0) return;
    this.size += n;
    if (this.size >= MAX_BATCH) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.options.maxDelayMs);
  }

  private async write(batch: Pending): Promise<void> {
    const n = batch.positions.length + batch.events.length + batch.commandIds.length;
    try {
      const commands = await commandsByIds(this.db, batch.commandIds);
      const rows = {
        account: [] as (string | null)[],
        device: [] as string[],
        kind: [] as string[],
        eventType: [] as (string | null)[],
        data: [] as string[],
      };
      const add = (account: string | null, device: string, kind: string, eventType: string | null, data: unknown) => {
        rows.account.push(account);
        rows.device.push(device);
        rows.kind.push(kind);
        rows.eventType.push(eventType);
        rows.data.push(JSON.stringify(data));
      };
      // Positions carry no account: the insert takes it from the device.
      for (const p of batch.positions) add(null, p.deviceId, 'position', null, presentPosition(p));
      for (const e of batch.events) add(e.accountId, e.deviceId, 'event', e.type, { ...presentEvent(e), attributes: e.attributes });
      for (const c of commands) add(c.accountId, c.command.deviceId, 'command', null, presentCommand(c.command));
      await this.db.transaction(async (tx) => {
        await tx.query('SELECT pg_advisory_xact_lock($1)', [FEED_LOCK]);
        const [last] = await tx.query<{ id: string | null }>(
          `WITH added AS (
             INSERT INTO feed_log (account_id, device_id, kind, event_type, data)
             SELECT coalesce(x.account, d.account_id), x.device, x.kind, x.event_type, x.data
             FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS x(account, device, kind, event_type, data, n)
             JOIN devices d ON d.id = x.device
             ORDER BY x.n
             RETURNING id)
           SELECT max(id)::text AS id FROM added`,
          [rows.account, rows.device, rows.kind, rows.eventType, rows.data],
        );
        if (last?.id) await tx.query('SELECT pg_notify($1, $2)', [FEED_CHANNEL, last.id]);
      });
      this.published += n;
    } catch (err) {
      this.failed += n;
      this.logger.error({ err, entries: n }, 'live feed batch not published');
    }
  }

  private async prune(): Promise<void> {
    await this.db.query('DELETE FROM feed_log WHERE created_at < now() - make_interval(secs => $1)', [this.options.retentionSeconds]);
  }
}
