// Removing a device, with what hangs off it, in one transaction; and telling every tracker process
// (NOTIFY) to drop the device's live connection, when a device is removed or its identifier changes,
// so the hardware that spoke for it is not stored under it any more.
import { bumpRulesVersion } from '../accounts/repository.js';
import type { Db, Queryable } from '../storage/db.js';
import type { Device } from './repository.js';

/** Every tracker process listens: the one holding the device's connection closes it. */
export const DEVICE_DISCONNECT_CHANNEL = 'device_disconnect';

export const POSITIONS_CHOICES = ['keep', 'remove'] as const;
export type PositionsChoice = (typeof POSITIONS_CHOICES)[number];

export interface Removal {
  id: string;
  /** What became of the device's position history. */
  positions: 'kept' | 'removed';
  positionsRemoved: number;
}

/** Tells the process holding the device's connection to close it (delivered on commit). */
export async function disconnectDevice(tx: Queryable, deviceId: string): Promise<void> {
  await tx.query('SELECT pg_notify($1, $2)', [DEVICE_DISCONNECT_CHANNEL, deviceId]);
}

/**
 * Removes the device and its commands, events, alerts, status log and unit notes (settings, rule
 * state, counters and latest telemetry go with the row); records made by inbound webhooks stay, no
 * longer naming it; custom rules stop naming it (a rule left with no device is disabled rather than
 * widened to every device). Positions are removed or kept as asked: kept ones stay in storage until
 * the position retention drops their month. Null when the device is already gone.
 */
export async function removeDevice(db: Db, device: Pick<Device, 'id' | 'accountId'>, positions: PositionsChoice): Promise<Removal | null> {
  return db.transaction(async (tx) => {
    const locked = await tx.query('SELECT id FROM devices WHERE id = $1 FOR UPDATE', [device.id]);
    if (locked.length === 0) return null;
    // Events before the alerts they opened.
    for (const table of ['commands', 'device_status_changes', 'events', 'alerts', 'unit_notes']) await tx.query(`DELETE FROM ${table} WHERE device_id = $1`, [device.id]);
    for (const table of ['incidents', 'expenses', 'work_orders']) await tx.query(`UPDATE ${table} SET device_id = NULL WHERE device_id = $1`, [device.id]);
    const rules = await tx.query(
      `UPDATE rules SET device_ids = array_remove(device_ids, $2), enabled = enabled AND cardinality(array_remove(device_ids, $2)) > 0, updated_at = now()
       WHERE account_id = $1 AND $2 = ANY(device_ids) RETURNING id`,
      [device.accountId, device.id],
    );
    if (rules.length > 0) await bumpRulesVersion(tx, device.accountId);
    const [removed] = positions === 'remove' ? await tx.query<{ n: number }>('WITH gone AS (DELETE FROM positions WHERE device_id = $1 RETURNING 1) SELECT count(*)::int AS n FROM gone', [device.id]) : [];
    await tx.query('DELETE FROM devices WHERE id = $1', [device.id]);
    await disconnectDevice(tx, device.id);
    return { id: device.id, positions: positions === 'remove' ? 'removed' : 'kept', positionsRemoved: removed?.n ?? 0 };
  });
}
