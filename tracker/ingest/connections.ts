// Live device connections of this process, by device id, and the online/offline record they drive.
// A device coming online is announced (device_online) in the transaction that records it; one going
// offline is announced (device_offline) only once it has stayed offline for the grace period, by
// whichever tracker process sweeps first. A device that reconnects within the grace period, as some
// do for every report, or across a tracker restart, raises neither.
import type { Logger } from '../../shared/logger.js';
import type { DeviceLink, DeviceLinks } from '../commands/device-links.js';
import type { EventEngine } from '../events/engine.js';
import type { RaisedEvent } from '../events/types.js';
import type { Db, Queryable } from '../storage/db.js';

/** A device connection: what commands are written to, and how a takeover ends it. */
export interface LiveConnection extends DeviceLink {
  close(): void;
}

/** The command dispatcher's device links, handed to it at start-up (ingest/index.ts). */
export class DeviceConnections implements DeviceLinks {
  private readonly live = new Map<string, LiveConnection>();
  private readonly listeners: ((deviceId: string) => void)[] = [];
  private readonly writing = new Set<Promise<void>>();

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
    private readonly events: EventEngine | null = null,
    /** Handed the online/offline events once their transaction committed (the live feed). */
    private readonly committed: (events: readonly RaisedEvent[]) => void = () => {},
  ) {}

  get(deviceId: string): LiveConnection | undefined {
    return this.live.get(deviceId);
  }

  get size(): number {
    return this.live.size;
  }

  /** Devices online here, by protocol. */
  byProtocol(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const conn of this.live.values()) counts.set(conn.protocol, (counts.get(conn.protocol) ?? 0) + 1);
    return counts;
  }

  /** Called for every device that comes online here (the dispatcher sends its queued commands). */
  onOnline(listener: (deviceId: string) => void): void {
    this.listeners.push(listener);
  }

  /**
   * The connection now speaks for the device: an older connection of the same device is closed.
   * True when it replaced one.
   */
  async attach(deviceId: string, protocol: string, conn: LiveConnection): Promise<boolean> {
    const previous = this.live.get(deviceId);
    this.live.set(deviceId, conn);
    const replaced = previous !== undefined && previous !== conn;
    if (replaced) previous.close();
    await this.tracked(this.record(deviceId, 'online', protocol));
    for (const l of this.listeners) l(deviceId);
    return replaced;
  }

  async detach(deviceId: string, conn: LiveConnection): Promise<void> {
    if (this.live.get(deviceId) !== conn) return; // replaced by a newer connection: still online
    this.live.delete(deviceId);
    await this.tracked(this.record(deviceId, 'offline', null));
  }

  /** Resolves once every online/offline record under way is written (before the database closes). */
  async settled(): Promise<void> {
    while (this.writing.size > 0) await Promise.all(this.writing);
  }

  private tracked<T>(write: Promise<T>): Promise<T> {
    const settled = write.then(() => undefined, () => undefined);
    this.writing.add(settled);
    return write.finally(() => this.writing.delete(settled));
  }

  /**
   * Announces the devices offline for graceSeconds or more whose going offline is not announced yet:
   * a batch per call, each device once across all processes (rows held by another are skipped).
   */
  announceOffline(graceSeconds: number): Promise<number> {
    return this.tracked(this.announced(async (tx, raised) => {
      const due = await tx.query<{ id: string }>(
        `UPDATE devices SET announced_status = 'offline' WHERE id IN (
           SELECT id FROM devices WHERE status = 'offline' AND announced_status = 'online' AND status_since <= now() - make_interval(secs => $1)
           ORDER BY status_since LIMIT ${OFFLINE_BATCH} FOR UPDATE SKIP LOCKED)
         RETURNING id`,
        [graceSeconds],
      );
      for (const { id } of due) raised.push(...((await this.events?.statusChanged(tx, id, 'offline')) ?? []));
      return due.length;
    }));
  }

  /** Runs fn in a transaction; the events it raised are handed on once it committed. */
  private async announced<T>(fn: (tx: Queryable, raised: RaisedEvent[]) => Promise<T>): Promise<T> {
    const raised: RaisedEvent[] = [];
    const result = await this.db.transaction((tx) => fn(tx, raised));
    if (raised.length > 0) this.committed(raised);
    return result;
  }

  private async record(deviceId: string, status: 'online' | 'offline', protocol: string | null): Promise<void> {
    try {
      await this.announced(async (tx, raised) => {
        // Read (and locked) first: a CTE read in RETURNING would see the row only after the update.
        const [before] = await tx.query<{ announced: string | null }>('SELECT announced_status AS announced FROM devices WHERE id = $1 FOR UPDATE', [deviceId]);
        const changed = await tx.query(
          `UPDATE devices SET status = $2, status_since = now(), protocol = coalesce($3, protocol),
             announced_status = CASE WHEN $2 = 'online' THEN 'online' ELSE announced_status END
           WHERE id = $1 AND (status <> $2 OR protocol IS DISTINCT FROM coalesce($3, protocol)) RETURNING id`,
          [deviceId, status, protocol],
        );
        if (changed.length === 0) return;
        await tx.query('INSERT INTO device_status_changes (device_id, status) VALUES ($1, $2)', [deviceId, status]);
        // Back within the grace period (its going offline was never announced), or a new connection
        // of an online device on another protocol: not news.
        if (status === 'online' && before?.announced !== 'online') raised.push(...((await this.events?.statusChanged(tx, deviceId, 'online')) ?? []));
      });
    } catch (err) {
      this.logger.error({ err, deviceId, status }, 'device status not recorded');
    }
  }
}

/** Devices announced offline per sweep and transaction (a whole fleet losing its network takes a few). */
const OFFLINE_BATCH = 500;
