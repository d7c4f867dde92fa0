// Batched, durable position writes. Connections hand in positions (and alarm-only reports) and
// wait; one transaction stores everything gathered since the last flush and judges it for
// events, and only after COMMIT are the waiters released to send their ACKs. A failed write
// rejects the waiters: their devices get no ACK and re-send.
import type { Logger } from '../../shared/logger.js';
import type { DeviceReport } from '../events/engine.js';
import { insertPositions, type DevicePosition } from '../positions/repository.js';
import type { Db, Queryable } from '../storage/db.js';

export interface BatcherOptions {
  /** Longest a position waits for its batch (ms). */
  maxDelayMs: number;
  /** A batch this large is written at once. */
  maxRows: number;
}

/** Runs in the batch's transaction with the positions that were new and the reports. */
export type OnStored = (tx: Queryable, stored: DevicePosition[], reports: DeviceReport[]) => Promise<unknown>;

interface Pending {
  rows: DevicePosition[];
  reports: DeviceReport[];
  waiters: { resolve: () => void; reject: (err: unknown) => void }[];
}

const empty = (): Pending => ({ rows: [], reports: [], waiters: [] });

export class PositionBatcher {
  private pending: Pending = empty();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private delayMs: number;
  stored = 0;

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
    private readonly onStored: OnStored | null = null,
    private readonly options: BatcherOptions = { maxDelayMs: 20, maxRows: 2000 },
  ) {
    this.delayMs = options.maxDelayMs;
  }

  /** On shutdown: each batch is written as soon as the previous one is, so connections drain fast. */
  hurry(): void {
    this.delayMs = 0;
  }

  /** Resolves once the positions and reports are committed. */
  add(rows: DevicePosition[], reports: DeviceReport[] = []): Promise<void> {
    if (rows.length === 0 && reports.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.pending.rows.push(...rows);
      this.pending.reports.push(...reports);
      this.pending.waiters.push({ resolve, reject });
      if (this.pending.rows.length + this.pending.reports.length >= this.options.maxRows) this.flush();
      else this.timer ??= setTimeout(() => this.flush(), this.delayMs);
    });
  }

  /** Writes what is pending; batches are written one after another, in order. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.pending;
    if (batch.waiters.length === 0) return this.flushing;
    this.pending = empty();
    this.flushing = this.flushing.then(async () => {
      try {
        await this.db.transaction(async (tx) => {
          const stored = await insertPositions(tx, batch.rows);
          await this.onStored?.(tx, stored, batch.reports);
        });
        this.stored += batch.rows.length;
        for (const w of batch.waiters) w.resolve();
      } catch (err) {
        this.logger.error({ err, rows: batch.rows.length }, 'position batch failed; devices will re-send');
        for (const w of batch.waiters) w.reject(err);
      }
    });
    return this.flushing;
  }
}
