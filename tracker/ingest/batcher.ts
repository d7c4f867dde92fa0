// Batched, durable position writes. Connections hand in positions (and reports without a fix) and
// wait; one transaction locks the devices' state (positions/device-state.ts; a device removed
// meanwhile has none, and its reports are refused), passes everything gathered since the last flush
// through the position filters and counters (positions/sequence.ts), stores it (marking the ended
// days it went into for the reports, reports/marks.ts), merges the devices' latest telemetry
// (positions/latest-telemetry.ts), writes the state back and judges the batch for events, and only
// after COMMIT are the waiters released to send their ACKs; then what was stored is handed to the
// live feed, off the ACK's path. Up to `writers` batches are written at once (one while the
// database works on another); what comes while every writer is busy waits and goes as one batch,
// so a chain that fell behind catches up with larger batches instead of queueing small ones. Two
// batches with a device in common take turns at its row lock, in the order they were cut, so a
// device's reports are counted and judged in order. A write the database refuses is split by waiter and
// retried, so one device's unusable frame fails that frame alone; when the database is unreachable
// every waiter is rejected: their devices get no ACK and re-send.
import type { Logger } from '../../shared/logger.js';
import type { DeviceReport } from '../events/engine.js';
import type { RaisedEvent } from '../events/types.js';
import type { FilterReason } from '../positions/filters.js';
import { KeptStates, lockDeviceStates, saveDeviceStates, type DeviceState } from '../positions/device-state.js';
import { mergeLatest } from '../positions/latest-telemetry.js';
import { insertPositions, type DevicePosition } from '../positions/repository.js';
import { sequence, type SequenceSettings } from '../positions/sequence.js';
import { markChangedDays } from '../reports/marks.js';
import type { Db, Queryable } from '../storage/db.js';

export interface BatcherOptions {
  /** Longest a position waits for its batch (ms). */
  maxDelayMs: number;
  /** A batch this large is written at once (when a writer is free), and no batch is larger. */
  maxRows: number;
  /** Batches written at once (1 on the embedded database, which runs one transaction at a time). */
  writers: number;
  /** The position filters and the computed counters' settings. */
  sequence: SequenceSettings;
}

/** Runs in the batch's transaction with the positions that were new (and not flagged), the reports and the devices' running states (what it leaves there is kept once committed); returns the events raised. */
export type OnStored = (tx: Queryable, stored: DevicePosition[], reports: DeviceReport[], states: ReadonlyMap<string, DeviceState>) => Promise<readonly RaisedEvent[]>;

/** Called after COMMIT (and after the waiters are released) with every new position stored, flagged ones too, and the events. */
export type OnCommitted = (stored: DevicePosition[], events: readonly RaisedEvent[]) => void;

/** One caller of add(): a device frame or report, the unit of an ACK. */
interface Waiter {
  rows: DevicePosition[];
  reports: DeviceReport[];
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * SQLSTATE classes that say the database, not the data, is the trouble: connection exception (08),
 * insufficient resources (53), operator intervention such as a shutdown (57), system error (58).
 */
const UNAVAILABLE_CLASSES = new Set(['08', '53', '57', '58']);

/**
 * True when a failed write is worth splitting: the database answered and refused this data, or a
 * value could not even be sent. Anything else (a refused or dropped connection, a pool timeout) would
 * fail every part alike.
 */
export function refusedByData(err: unknown): boolean {
  if (err instanceof RangeError || err instanceof TypeError) return true;
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !UNAVAILABLE_CLASSES.has(code.slice(0, 2));
}

/**
 * Reports of devices removed after their connection identified (the removal's notice to close it was
 * still on its way): refused, so nothing is stored under an id that no longer exists.
 */
export class RemovedDevicesError extends Error {
  constructor(readonly ids: ReadonlySet<string>) {
    super(`device removed: ${[...ids].join(', ')}`);
  }
}

function deviceIdsOf(w: Waiter, into: Set<string> = new Set()): Set<string> {
  for (const r of w.rows) into.add(r.deviceId);
  for (const r of w.reports) into.add(r.deviceId);
  return into;
}

export class PositionBatcher {
  private pending: Waiter[] = [];
  private pendingRows = 0;
  private timer: NodeJS.Timeout | null = null;
  /** Writes under way. */
  private readonly writing = new Set<Promise<void>>();
  /** The devices' states as this tracker last committed them. */
  private readonly kept = new KeptStates();
  /** Resolves once the last write started holds its devices' locks (or failed before). */
  private lockTurn: Promise<void> = Promise.resolve();
  private delayMs: number;
  stored = 0;
  /** Frames and reports whose write the database refused even alone (their devices got no ACK). */
  refusedWrites = 0;
  /** Positions filtered, by `reason action` (flag: stored flagged; drop: left out, still ACKed). */
  readonly filtered = new Map<string, number>();

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
    private readonly onStored: OnStored | null,
    private readonly options: BatcherOptions,
    private readonly onCommitted: OnCommitted | null = null,
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
      this.pending.push({ rows, reports, resolve, reject });
      this.pendingRows += rows.length + reports.length;
      if (this.pendingRows >= this.options.maxRows) this.start();
      // With every writer busy, the next one to finish takes what is pending.
      else if (this.writing.size < this.options.writers) this.timer ??= setTimeout(() => this.start(), this.delayMs);
    });
  }

  /** Writes what is pending; resolves once nothing is pending or being written. */
  async flush(): Promise<void> {
    this.start();
    while (this.writing.size > 0) await Promise.allSettled([...this.writing]);
  }

  /** Starts writes of what is pending, at most maxRows each, while a writer is free. */
  private start(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    while (this.pending.length > 0 && this.writing.size < this.options.writers) {
      let taken = 0;
      let rows = 0;
      while (taken < this.pending.length && (taken === 0 || rows < this.options.maxRows)) {
        const w = this.pending[taken++]!;
        rows += w.rows.length + w.reports.length;
      }
      const batch = this.pending.splice(0, taken);
      this.pendingRows -= rows;
      const written: Promise<void> = this.write(batch).finally(() => {
        this.writing.delete(written);
        this.start();
      });
      this.writing.add(written);
    }
  }

  private countFiltered(reason: FilterReason, action: 'flag' | 'drop', n = 1): void {
    const key = `${reason} ${action}`;
    this.filtered.set(key, (this.filtered.get(key) ?? 0) + n);
  }

  /**
   * One transaction for the waiters; when the database refuses it, each half is retried in its own
   * (events judged in a part commit with that part's positions), down to the single waiter at fault.
   */
  private async write(waiters: Waiter[]): Promise<void> {
    if (waiters.length === 0) return;
    const rows = waiters.flatMap((w) => w.rows);
    // Batches lock their devices' rows in the order they were started: each asks once the one
    // before holds its locks.
    const turn = this.lockTurn;
    let locked!: () => void;
    this.lockTurn = new Promise((resolve) => (locked = resolve));
    try {
      const { kept, stored, dropped, events, states } = await this.db.transaction(async (tx) => {
        const reports = waiters.flatMap((w) => w.reports);
        const ids = new Set<string>();
        for (const w of waiters) deviceIdsOf(w, ids);
        await turn;
        const states = await lockDeviceStates(tx, ids, this.kept).finally(locked);
        if (states.size < ids.size) throw new RemovedDevicesError(new Set([...ids].filter((id) => !states.has(id))));
        const sequenced = sequence(rows, states, this.options.sequence);
        const stored = await insertPositions(tx, sequenced.rows);
        await markChangedDays(tx, stored);
        const judged = stored.filter((r) => !r.filtered);
        mergeLatest(states, judged, reports);
        await saveDeviceStates(tx, states.values());
        const events = (await this.onStored?.(tx, judged, reports, states)) ?? [];
        return { kept: sequenced.rows.length, stored, dropped: sequenced.dropped, events, states };
      });
      this.kept.keep(states.values());
      // Counted once committed: a part retried after a split is not counted twice.
      this.stored += stored.length;
      for (const reason of dropped) this.countFiltered(reason, 'drop');
      for (const r of stored) if (r.filtered) this.countFiltered(r.filtered, 'flag');
      this.countFiltered('duplicate', 'drop', kept - stored.length); // already stored: the key skipped them
      for (const w of waiters) w.resolve();
      this.onCommitted?.(stored, events);
    } catch (err) {
      locked(); // failed before its lock: the next batch goes first, and the parts below after it
      if (err instanceof RemovedDevicesError) {
        const refused = (w: Waiter) => [...deviceIdsOf(w)].some((id) => err.ids.has(id));
        for (const w of waiters.filter(refused)) w.reject(err);
        await this.write(waiters.filter((w) => !refused(w)));
        return;
      }
      if (waiters.length > 1 && refusedByData(err)) {
        const half = Math.ceil(waiters.length / 2);
        await this.write(waiters.slice(0, half));
        await this.write(waiters.slice(half));
        return;
      }
      if (waiters.length === 1 && refusedByData(err)) {
        this.refusedWrites++;
        this.logger.warn({ err, deviceIds: [...new Set(rows.map((r) => r.deviceId))], rows: rows.length }, 'positions refused by the database; the device gets no ACK');
      } else this.logger.error({ err, rows: rows.length }, 'position batch failed; devices will re-send');
      for (const w of waiters) w.reject(err);
    }
  }
}
