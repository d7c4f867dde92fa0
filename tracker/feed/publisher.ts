// Publishing to the live feed: what was committed (positions, events, command status changes) is
// handed in without waiting and written to the retained log in batches, off the ingest path, each
// batch one statement (its own transaction) under one advisory lock, so ids become visible in the order
// they were given across every tracker process: a reader that has seen id N never later finds a
// smaller one. One batch is written at a time, and what comes in meanwhile is the next batch: a busy
// database gets fewer, larger statements, not one per few milliseconds queued behind each other.
// Every batch is announced with NOTIFY; the log keeps STREAM_RETENTION_SECONDS (pruned by one
// tracker at a time).
// Positions are logged only for the accounts someone streams (interest.ts): while nobody does,
// handing them in costs the ingest path one comparison.
import type { Logger } from '../../shared/logger.js';
import { presentCommand } from '../commands/present.js';
import type { Command } from '../commands/repository.js';
import { presentEvent } from '../events/present.js';
import type { RaisedEvent } from '../events/types.js';
import type { DevicePosition } from '../positions/repository.js';
import type { Db } from '../storage/db.js';
import type { PeriodicJobs } from '../storage/periodic.js';
import { FEED_CHANNEL, FEED_LOCK, presentPosition } from './entries.js';
import { INTEREST_CHANNEL, interestedAccounts } from './interest.js';

export interface FeedPublisherOptions {
  /** Longest an entry waits for its batch (ms). */
  maxDelayMs: number;
  retentionSeconds: number;
}

interface Pending {
  positions: DevicePosition[];
  events: RaisedEvent[];
  commands: Command[];
}

/** How often entries past their retention are removed. */
const PRUNE_EVERY_MS = 30_000;
/** How often the accounts with streams are read again (a stream opened on another tracker is seen this late). */
const INTEREST_EVERY_MS = 1000;
/** A batch this large is written at once (when no other is under way); a statement holds at most this many. */
const MAX_BATCH = 5000;
/**
 * Entries waiting to be written past which new ones are dropped (counted and logged): when the
 * database cannot keep up, the live feed gives way rather than the tracker's memory.
 */
const MAX_BACKLOG = 200_000;
const DROP_LOG_EVERY_MS = 60_000;

const empty = (): Pending => ({ positions: [], events: [], commands: [] });

export class FeedPublisher {
  private pending = empty();
  private size = 0;
  /** Entries handed in and not yet written (pending and in batches under way). */
  private backlog = 0;
  private droppedLoggedAt = 0;
  private timer: NodeJS.Timeout | null = null;
  /** The batches under way: written one after another while entries are pending. */
  private writing: Promise<void> | null = null;
  private readonly stopPruning: () => void;
  private readonly interestTimer: NodeJS.Timeout;
  private interested = new Set<string>();
  private unlisten: (() => Promise<void>) | null = null;
  /** Entries written to the log since start. */
  published = 0;
  /** Entries lost because the database refused their batch, or dropped past the backlog (logged). */
  failed = 0;

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
    private readonly options: FeedPublisherOptions,
    jobs: PeriodicJobs,
  ) {
    this.stopPruning = jobs.every('feed-log', PRUNE_EVERY_MS, () => this.prune());
    this.interestTimer = setInterval(() => {
      interestedAccounts(db)
        .then((accounts) => (this.interested = accounts))
        .catch((err: unknown) => logger.error({ err }, 'reading the live feed accounts failed'));
    }, INTEREST_EVERY_MS).unref();
  }

  /** Hears of streams opening on any tracker, so their accounts' positions are logged at once. */
  async start(): Promise<void> {
    this.interested = await interestedAccounts(this.db);
    this.unlisten = await this.db.listen(INTEREST_CHANNEL, (accountId) => this.interested.add(accountId));
  }

  /** Stored positions (after their batch committed). */
  positions(rows: readonly DevicePosition[]): void {
    if (this.interested.size > 0 && this.admits(rows.length)) for (const r of rows) this.pending.positions.push(r);
  }

  /** Stored events (after their transaction committed). */
  events(events: readonly RaisedEvent[]): void {
    if (this.admits(events.length)) for (const e of events) this.pending.events.push(e);
  }

  /** Commands whose status changed, as they were once written: one entry per change. */
  commands(commands: readonly Command[]): void {
    if (this.admits(commands.length)) for (const c of commands) this.pending.commands.push(c);
  }

  /** Writes what is pending and waits until nothing is (what comes in meanwhile included). */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    do {
      this.writing ??= this.drain().finally(() => (this.writing = null));
      await this.writing;
    } while (this.size > 0); // handed in as the batches under way ended
  }

  async close(): Promise<void> {
    this.stopPruning();
    clearInterval(this.interestTimer);
    await this.unlisten?.();
    await this.flush();
  }

  /** Counts n entries in and schedules their batch; false (and they are dropped) past the backlog. */
  private admits(n: number): boolean {
    if (n === 0) return false;
    if (this.backlog + n > MAX_BACKLOG) {
      this.failed += n;
      if (Date.now() - this.droppedLoggedAt > DROP_LOG_EVERY_MS) {
        this.droppedLoggedAt = Date.now();
        this.logger.error({ backlog: this.backlog, failed: this.failed }, 'live feed behind: entries dropped');
      }
      return false;
    }
    this.backlog += n;
    this.size += n;
    if (this.size >= MAX_BATCH) queueMicrotask(() => void this.flush());
    else this.timer ??= setTimeout(() => void this.flush(), this.options.maxDelayMs);
    return true;
  }

  /** Writes batches of what is pending until nothing is. */
  private async drain(): Promise<void> {
    while (this.size > 0) await this.write(this.take());
  }

  /** Takes up to MAX_BATCH pending entries, in the order they came within each kind. */
  private take(): Pending {
    let room = MAX_BATCH;
    const cut = <T>(list: T[]): T[] => {
      const taken = list.splice(0, room);
      room -= taken.length;
      return taken;
    };
    const batch = { positions: cut(this.pending.positions), events: cut(this.pending.events), commands: cut(this.pending.commands) };
    this.size -= MAX_BATCH - room;
    return batch;
  }

  private async write(batch: Pending): Promise<void> {
    const n = batch.positions.length + batch.events.length + batch.commands.length;
    try {
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
      // Positions carry no account: the statement takes it from the device, for the accounts streamed.
      for (const p of batch.positions) add(null, p.deviceId, 'position', null, presentPosition(p));
      for (const e of batch.events) add(e.accountId, e.deviceId, 'event', e.type, { ...presentEvent(e), attributes: e.attributes });
      for (const c of batch.commands) add(c.accountId, c.deviceId, 'command', null, presentCommand(c));
      if (rows.data.length === 0) return;
      // One statement, one round trip: the lock is taken before the first row is numbered (every row
      // is joined with it), held to the commit, and the NOTIFY goes out at the commit.
      const [written] = await this.db.query<{ n: number }>(
        `WITH locked AS (SELECT pg_advisory_xact_lock($6) AS held),
         added AS (
           INSERT INTO feed_log (account_id, device_id, kind, event_type, data)
           SELECT coalesce(x.account, d.account_id), x.device, x.kind, x.event_type, x.data
           FROM locked CROSS JOIN unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS x(account, device, kind, event_type, data, n)
           LEFT JOIN devices d ON x.account IS NULL AND d.id = x.device
           WHERE x.account IS NOT NULL OR d.account_id = ANY($7::text[])
           ORDER BY x.n
           RETURNING id)
         SELECT count(*)::int AS n, pg_notify($8, max(id)::text) FROM added HAVING count(*) > 0`,
        [rows.account, rows.device, rows.kind, rows.eventType, rows.data, FEED_LOCK, [...this.interested], FEED_CHANNEL],
      );
      this.published += written?.n ?? 0;
    } catch (err) {
      this.failed += n;
      this.logger.error({ err, entries: n }, 'live feed batch not published');
    } finally {
      this.backlog -= n;
    }
  }

  private async prune(): Promise<void> {
    await this.db.query('DELETE FROM feed_log WHERE created_at < now() - make_interval(secs => $1)', [this.options.retentionSeconds]);
  }
}
