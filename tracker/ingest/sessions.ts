// Live device connections of this process, by device id, and the online/offline record they drive:
// each change is written with its device_online / device_offline event in one transaction.
import type { Logger } from '../../shared/logger.js';
import type { EventEngine } from '../events/engine.js';
import type { Db } from '../storage/db.js';

/** What the command dispatcher needs of a connection. */
export interface LiveConnection {
  protocol: string;
  /** Sends a locate request; false when the protocol has none. */
  sendLocate(commandSeq: number): boolean;
  close(): void;
}

export class DeviceSessions {
  private readonly live = new Map<string, LiveConnection>();
  private readonly listeners: ((deviceId: string) => void)[] = [];
  private readonly writing = new Set<Promise<void>>();
  private stopping = false;

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
    private readonly events: EventEngine | null = null,
  ) {}

  /**
   * The tracker is stopping: connections it closes from now on are still recorded offline, but
   * raise no device_offline events. The devices are not offline; they reconnect to the next
   * process within seconds, and a restart must not open a warning alert for the whole fleet.
   */
  stop(): void {
    this.stopping = true;
  }

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

  /** A device identified itself on a connection: an older connection of the same device is closed. */
  async attach(deviceId: string, protocol: string, conn: LiveConnection): Promise<void> {
    const previous = this.live.get(deviceId);
    this.live.set(deviceId, conn);
    if (previous && previous !== conn) previous.close();
    await this.tracked(this.record(deviceId, 'online', protocol));
    for (const l of this.listeners) l(deviceId);
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

  private tracked(write: Promise<void>): Promise<void> {
    this.writing.add(write);
    return write.finally(() => this.writing.delete(write));
  }

  private async record(deviceId: string, status: 'online' | 'offline', protocol: string | null): Promise<void> {
    try {
      await this.db.transaction(async (tx) => {
        const changed = await tx.query<{ was: string }>(
          `WITH old AS (SELECT status FROM devices WHERE id = $1 FOR UPDATE)
           UPDATE devices SET status = $2, status_since = now(), protocol = coalesce($3, protocol)
           WHERE id = $1 AND (status <> $2 OR protocol IS DISTINCT FROM coalesce($3, protocol)) RETURNING (SELECT status FROM old) AS was`,
          [deviceId, status, protocol],
        );
        if (changed.length === 0) return;
        await tx.query('INSERT INTO device_status_changes (device_id, status) VALUES ($1, $2)', [deviceId, status]);
        // A new connection of an online device on another protocol is not a status change.
        if (changed[0]!.was !== status && !this.stopping) await this.events?.statusChanged(tx, deviceId, status);
      });
    } catch (err) {
      this.logger.error({ err, deviceId, status }, 'device status not recorded');
    }
  }
}
