// The fan-out of this process: one LISTEN for the whole process, one read of the log per wake-up
// (whoever published it, on any tracker), each entry handed to the streams of its account here.
// While no stream is open the log is not read; a poll covers a notification lost with its connection.
import type { Logger } from '../../shared/logger.js';
import { FEED_CHANNEL, lastFeedId, readFeed, type FeedEntry } from '../feed/entries.js';
import type { Db } from '../storage/db.js';

/** One open stream, as the hub sees it. */
export interface Subscriber {
  accountId: string;
  deliver(entry: FeedEntry): void;
}

/** Entries read per query; a wake-up reads until it is through. */
const READ_BATCH = 2000;
/** How often the log is read while streams are open, whether or not a notification came. */
const POLL_MS = 1000;

export class FeedHub {
  private cursor = '0';
  private readonly byAccount = new Map<string, Set<Subscriber>>();
  private streams = 0;
  private reading: Promise<void> | null = null;
  private again = false;
  private unlisten: (() => Promise<void>) | null = null;
  private poller: NodeJS.Timeout | null = null;

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    this.cursor = await lastFeedId(this.db);
    this.unlisten = await this.db.listen(FEED_CHANNEL, (payload) => {
      // With nobody listening here, the entries are skipped without being read.
      if (this.streams === 0 && /^[0-9]{1,19}$/.test(payload) && BigInt(payload) > BigInt(this.cursor)) this.cursor = payload;
      else this.wake();
    });
    this.poller = setInterval(() => this.streams > 0 && this.wake(), POLL_MS).unref();
  }

  async stop(): Promise<void> {
    if (this.poller) clearInterval(this.poller);
    await this.unlisten?.();
    await this.reading;
  }

  /** Open streams in this process. */
  get size(): number {
    return this.streams;
  }

  /** Accounts with a stream open here. */
  accounts(): string[] {
    return [...this.byAccount.keys()];
  }

  /** The id the hub has read up to: a stream joining now gets everything after it live. */
  get position(): string {
    return this.cursor;
  }

  add(s: Subscriber): void {
    let set = this.byAccount.get(s.accountId);
    if (!set) this.byAccount.set(s.accountId, (set = new Set()));
    if (!set.has(s)) this.streams++;
    set.add(s);
  }

  remove(s: Subscriber): void {
    const set = this.byAccount.get(s.accountId);
    if (!set?.delete(s)) return;
    this.streams--;
    if (set.size === 0) this.byAccount.delete(s.accountId);
  }

  private wake(): void {
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = this.read()
      .catch((err: unknown) => this.logger.error({ err }, 'reading the live feed failed'))
      .finally(() => {
        this.reading = null;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  private async read(): Promise<void> {
    for (;;) {
      const entries = await readFeed(this.db, this.cursor, READ_BATCH);
      for (const entry of entries) {
        const set = this.byAccount.get(entry.accountId);
        if (set) for (const s of set) s.deliver(entry);
      }
      if (entries.length > 0) this.cursor = entries.at(-1)!.id;
      if (entries.length < READ_BATCH) return;
    }
  }
}
