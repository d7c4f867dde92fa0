// One client's stream: the entries of its account that pass its filters, as SSE events, in id
// order and each once. A resuming client first gets what it missed from the retained log while the
// live entries are held back, then those. Bytes are never buffered without bound: a client that
// reads slower than its entries come is sent a `cutoff` event and the stream ends.
import type { Response } from 'express';
import type { FeedEntry, FeedKind } from '../feed/entries.js';
import { readFeed } from '../feed/entries.js';
import type { Queryable } from '../storage/db.js';
import type { Subscriber } from './hub.js';

export interface StreamFilter {
  deviceIds: Set<string> | null;
  kinds: Set<FeedKind> | null;
  eventTypes: Set<string> | null;
}

export interface StreamLimits {
  heartbeatMs: number;
  /** Bytes written and not yet taken by the client past which it is cut off. */
  maxBufferBytes: number;
}

export type CutoffReason = 'slow_consumer' | 'shutting_down' | 'signed_out';

/** Entries read from the log per query while catching up. */
const CATCH_UP_BATCH = 1000;
/** A cut-off client gets this long to take its last bytes before the connection is closed. */
const LAST_WORDS_MS = 5000;

const MESSAGES: Record<CutoffReason, string> = {
  slow_consumer: 'the client did not read its events as fast as they came; reconnect with Last-Event-ID to continue',
  shutting_down: 'the server is restarting; reconnect with Last-Event-ID to continue',
  signed_out: 'the dashboard session has ended; sign in again to continue',
};

export class FeedStream implements Subscriber {
  private last: number;
  private held: FeedEntry[] | null = null;
  private ended = false;
  private readonly heartbeat: NodeJS.Timeout;
  /** Called once when the stream ends, for whatever reason. */
  onEnd: () => void = () => {};

  constructor(
    readonly accountId: string,
    private readonly res: Response,
    private readonly filter: StreamFilter,
    private readonly limits: StreamLimits,
    after: string,
  ) {
    this.last = Number(after);
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Accel-Buffering': 'no',
    });
    res.socket?.setNoDelay(true);
    // Tells the client the stream is open, and how long to wait before reconnecting.
    res.write('retry: 2000\n\n');
    this.heartbeat = setInterval(() => this.send(': heartbeat\n\n'), limits.heartbeatMs);
    res.on('close', () => this.end());
  }

  /** Sends what the log holds after `after` for this account, then the live entries held meanwhile. */
  async catchUp(db: Queryable, after: string): Promise<void> {
    this.held = [];
    let cursor = after;
    for (;;) {
      const entries = await readFeed(db, cursor, CATCH_UP_BATCH, this.accountId);
      for (const e of entries) this.write(e);
      if (this.ended) return;
      if (this.res.writableNeedDrain) await this.drained();
      if (entries.length < CATCH_UP_BATCH) break;
      cursor = entries.at(-1)!.id;
    }
    const held = this.held;
    this.held = null;
    for (const e of held) this.write(e);
  }

  deliver(entry: FeedEntry): void {
    if (this.ended) return;
    if (this.held) {
      this.held.push(entry);
      if (this.held.length * 256 > this.limits.maxBufferBytes) this.cutoff('slow_consumer');
      return;
    }
    this.write(entry);
  }

  cutoff(reason: CutoffReason): void {
    if (this.ended) return;
    this.res.write(`event: cutoff\ndata: ${JSON.stringify({ reason, message: MESSAGES[reason] })}\n\n`);
    this.end();
    this.res.end();
    setTimeout(() => this.res.destroy(), LAST_WORDS_MS).unref();
  }

  private write(e: FeedEntry): void {
    const id = Number(e.id);
    if (this.ended || id <= this.last) return;
    this.last = id;
    const f = this.filter;
    if (f.kinds && !f.kinds.has(e.kind)) return;
    if (f.deviceIds && !f.deviceIds.has(e.deviceId)) return;
    if (f.eventTypes && e.kind === 'event' && !f.eventTypes.has(e.eventType!)) return;
    this.send(`id: ${e.id}\nevent: ${e.kind}\ndata: ${e.data}\n\n`);
  }

  private send(text: string): void {
    if (this.ended) return;
    this.res.write(text);
    if (this.res.writableLength > this.limits.maxBufferBytes) this.cutoff('slow_consumer');
  }

  /** While catching up the log is read no faster than the client takes it. */
  private drained(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.res.off('drain', done);
        this.res.off('close', done);
        resolve();
      };
      this.res.on('drain', done);
      this.res.on('close', done);
    });
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    clearInterval(this.heartbeat);
    this.onEnd();
  }
}
