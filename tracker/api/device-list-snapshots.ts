// The devices list of a large account is served from a snapshot refreshed in the background, so
// integrators polling thousands of units get an answer in milliseconds without each poll costing
// a full render in PostgreSQL. Smaller lists render per request and are always current.
import type { Logger } from '../../shared/logger.js';
import type { Queryable } from '../storage/db.js';
import { devicesJson } from './sql-json.js';

export interface SnapshotOptions {
  /** A snapshot younger than this is served as it is; 0 renders every request. */
  maxAgeMs: number;
  /** Lists shorter than this are never kept. */
  minDevices: number;
  /** Memory the snapshots may take together (the least recently rendered go first). */
  maxBytes: number;
}

interface Snapshot {
  body: Buffer;
  renderedAt: number;
  refreshing: boolean;
}

/** Past this many times maxAgeMs a snapshot is not served even while a refresh runs. */
const STALE_FACTOR = 5;

export class DeviceListSnapshots {
  private readonly snapshots = new Map<string, Snapshot>();
  private bytes = 0;

  constructor(
    private readonly db: Queryable,
    private readonly logger: Logger,
    private readonly options: SnapshotOptions,
  ) {}

  /** The response body `{"data":[…devices]}`, encoded once for every request a snapshot serves. */
  async body(accountId: string): Promise<Buffer> {
    const snapshot = this.snapshots.get(accountId);
    const age = snapshot ? Date.now() - snapshot.renderedAt : Infinity;
    if (snapshot && age < this.options.maxAgeMs) return snapshot.body;
    if (snapshot && age < this.options.maxAgeMs * STALE_FACTOR) {
      if (!snapshot.refreshing) {
        snapshot.refreshing = true;
        this.render(accountId).catch((err: unknown) => {
          snapshot.refreshing = false;
          this.logger.warn({ err, accountId }, 'devices list refresh failed; the previous snapshot is served');
        });
      }
      return snapshot.body;
    }
    return this.render(accountId);
  }

  private async render(accountId: string): Promise<Buffer> {
    const startedAt = Date.now();
    const { json, count } = await devicesJson(this.db, accountId);
    const body = Buffer.from(`{"data":${json}}`);
    this.forget(accountId);
    if (this.options.maxAgeMs > 0 && count >= this.options.minDevices && body.length <= this.options.maxBytes) {
      while (this.bytes + body.length > this.options.maxBytes) this.forget(this.snapshots.keys().next().value!);
      this.snapshots.set(accountId, { body, renderedAt: startedAt, refreshing: false });
      this.bytes += body.length;
    }
    return body;
  }

  private forget(accountId: string): void {
    this.bytes -= this.snapshots.get(accountId)?.body.length ?? 0;
    this.snapshots.delete(accountId);
  }
}
