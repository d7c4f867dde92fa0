// Device commands (locate): created queued, then sent, delivered, expired or failed.
import { newId } from '../../shared/ids.js';
import type { Queryable } from '../storage/db.js';

export type CommandStatus = 'queued' | 'sent' | 'delivered' | 'expired' | 'failed';

export interface Command {
  id: string;
  deviceId: string;
  type: string;
  status: CommandStatus;
  createdAt: Date;
  expiresAt: Date;
  sentAt: Date | null;
  deliveredAt: Date | null;
  endedAt: Date | null;
  reply: string | null;
  position: { lat: number; lng: number; speed: number; heading: number; timestamp: string } | null;
  error: string | null;
}

interface Row {
  id: string;
  device_id: string;
  type: string;
  status: CommandStatus;
  created_at: Date;
  expires_at: Date;
  sent_at: Date | null;
  delivered_at: Date | null;
  ended_at: Date | null;
  reply: string | null;
  position: Command['position'];
  error: string | null;
}

const toCommand = (r: Row): Command => ({
  id: r.id,
  deviceId: r.device_id,
  type: r.type,
  status: r.status,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  sentAt: r.sent_at,
  deliveredAt: r.delivered_at,
  endedAt: r.ended_at,
  reply: r.reply,
  position: r.position,
  error: r.error,
});

export async function createCommand(db: Queryable, c: { accountId: string; deviceId: string; type: string; ttlSeconds: number }): Promise<Command> {
  const rows = await db.query<Row>(
    `INSERT INTO commands (id, account_id, device_id, type, expires_at) VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5)) RETURNING *`,
    [newId('cmd'), c.accountId, c.deviceId, c.type, c.ttlSeconds],
  );
  return toCommand(rows[0]!);
}

export async function findCommand(db: Queryable, accountId: string, deviceId: string, id: string): Promise<Command | null> {
  const rows = await db.query<Row>('SELECT * FROM commands WHERE account_id = $1 AND device_id = $2 AND id = $3', [accountId, deviceId, id]);
  return rows[0] ? toCommand(rows[0]) : null;
}

/** Queued commands of a device claimed for sending (atomically, so two processes never both send). */
export async function claimQueued(db: Queryable, deviceId: string): Promise<Command[]> {
  const rows = await db.query<Row>(
    `UPDATE commands SET status = 'sent', sent_at = now()
     WHERE id IN (SELECT id FROM commands WHERE device_id = $1 AND status = 'queued' AND expires_at > now() ORDER BY created_at FOR UPDATE SKIP LOCKED)
     RETURNING *`,
    [deviceId],
  );
  return rows.map(toCommand).sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
}

/** Queued commands past their time to live become expired. */
export async function expireCommands(db: Queryable): Promise<number> {
  const rows = await db.query("UPDATE commands SET status = 'expired', ended_at = now() WHERE status = 'queued' AND expires_at <= now() RETURNING id");
  return rows.length;
}

export async function failCommand(db: Queryable, id: string, error: string): Promise<void> {
  await db.query("UPDATE commands SET status = 'failed', ended_at = now(), error = $2 WHERE id = $1", [id, error]);
}

/** The device answered: its oldest sent command is delivered, with the reply and position. */
export async function deliverOldestSent(db: Queryable, deviceId: string, reply: string, position: Command['position']): Promise<Command | null> {
  const rows = await db.query<Row>(
    `UPDATE commands SET status = 'delivered', delivered_at = now(), reply = $2, position = $3
     WHERE id = (SELECT id FROM commands WHERE device_id = $1 AND status = 'sent' ORDER BY sent_at, created_at LIMIT 1)
     RETURNING *`,
    [deviceId, reply, position === null ? null : JSON.stringify(position)],
  );
  return rows[0] ? toCommand(rows[0]) : null;
}
