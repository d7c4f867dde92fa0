// Device commands (locate, engine stop/resume, reboot, setInterval, custom): created queued, then sent, delivered, expired or failed.
import { newId } from '../../shared/ids.js';
import type { CommandParams } from '../protocols/types.js';
import type { Queryable } from '../storage/db.js';

export type CommandStatus = 'queued' | 'sent' | 'delivered' | 'expired' | 'failed';

export interface Command {
  id: string;
  accountId: string;
  deviceId: string;
  type: string;
  attributes: CommandParams;
  /** The API token that sent it; null when a dashboard user did, or for commands queued before tokens were recorded. */
  tokenId: string | null;
  /** The dashboard user who sent it; null when a token did. */
  userId: string | null;
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
  account_id: string;
  device_id: string;
  type: string;
  attributes: CommandParams;
  token_id: string | null;
  user_id: string | null;
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
  accountId: r.account_id,
  deviceId: r.device_id,
  type: r.type,
  attributes: r.attributes,
  tokenId: r.token_id,
  userId: r.user_id,
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

/** Who asks for a command, as the audit log records it: an API token, or a user signed in to the dashboard. */
export type CommandSender = { tokenId: string } | { userId: string };

export interface NewCommand {
  accountId: string;
  deviceId: string;
  type: string;
  attributes: CommandParams;
  sender: CommandSender;
  ttlSeconds: number;
}

export async function createCommand(db: Queryable, c: NewCommand): Promise<Command> {
  const rows = await db.query<Row>(
    // Creation time in whole milliseconds, as the list's cursor carries it, so no row is skipped at a page boundary.
    `INSERT INTO commands (id, account_id, device_id, type, attributes, token_id, user_id, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, date_trunc('milliseconds', now()), now() + make_interval(secs => $8)) RETURNING *`,
    [newId('cmd'), c.accountId, c.deviceId, c.type, JSON.stringify(c.attributes), 'tokenId' in c.sender ? c.sender.tokenId : null, 'userId' in c.sender ? c.sender.userId : null, c.ttlSeconds],
  );
  return toCommand(rows[0]!);
}

export async function findCommand(db: Queryable, accountId: string, deviceId: string, id: string): Promise<Command | null> {
  const rows = await db.query<Row>('SELECT * FROM commands WHERE account_id = $1 AND device_id = $2 AND id = $3', [accountId, deviceId, id]);
  return rows[0] ? toCommand(rows[0]) : null;
}

/** A device's commands, newest first, continuing after `before` (keyset). */
export async function listCommands(db: Queryable, q: { accountId: string; deviceId: string; before: { createdAt: Date; id: string } | null; limit: number }): Promise<Command[]> {
  const rows = await db.query<Row>(
    `SELECT * FROM commands WHERE account_id = $1 AND device_id = $2 AND ($3::timestamptz IS NULL OR (created_at, id) < ($3, $4))
     ORDER BY created_at DESC, id DESC LIMIT $5`,
    [q.accountId, q.deviceId, q.before?.createdAt.toISOString() ?? null, q.before?.id ?? null, q.limit],
  );
  return rows.map(toCommand);
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

/** Queued commands past their time to live become expired; returns them as they are now. */
export async function expireCommands(db: Queryable): Promise<Command[]> {
  const rows = await db.query<Row>("UPDATE commands SET status = 'expired', ended_at = now() WHERE status = 'queued' AND expires_at <= now() RETURNING *");
  return rows.map(toCommand);
}

/** The identifier a device's commands name where the protocol puts it in them (H02). */
export async function deviceIdentity(db: Queryable, deviceId: string): Promise<string | undefined> {
  const rows = await db.query<{ imei: string }>('SELECT imei FROM devices WHERE id = $1', [deviceId]);
  return rows[0]?.imei;
}

/** The number a sent command travels with, which a protocol that echoes it uses to match the reply. */
export async function recordSeq(db: Queryable, id: string, seq: number): Promise<void> {
  await db.query('UPDATE commands SET seq = $2 WHERE id = $1', [id, seq]);
}

export async function failCommand(db: Queryable, id: string, error: string): Promise<Command> {
  const rows = await db.query<Row>("UPDATE commands SET status = 'failed', ended_at = now(), error = $2 WHERE id = $1 RETURNING *", [id, error]);
  return toCommand(rows[0]!);
}

/**
 * The device answered: the sent command whose number the reply echoes is delivered (or, when the
 * unit says it refused it, failed), with the reply and position; without a number (a protocol that
 * echoes none), or one no command has (units that echo zeros), the oldest sent one. Of several sent
 * with that number (a narrow serial wraps around), the newest: an older one went unanswered.
 */
export async function deliverSent(db: Queryable, deviceId: string, seq: number | undefined, reply: string, position: Command['position'], failed = false): Promise<Command | null> {
  const rows = await db.query<Row>(
    `UPDATE commands SET status = CASE WHEN $5 THEN 'failed' ELSE 'delivered' END,
       delivered_at = CASE WHEN $5 THEN NULL ELSE now() END, ended_at = CASE WHEN $5 THEN now() END,
       error = CASE WHEN $5 THEN 'the unit did not carry it out: ' || $2 END,
       reply = $2, position = $3
     WHERE id = (SELECT id FROM commands WHERE device_id = $1 AND status = 'sent'
       ORDER BY seq IS NOT DISTINCT FROM $4::bigint DESC, CASE WHEN seq = $4::bigint THEN sent_at END DESC NULLS LAST, sent_at, created_at LIMIT 1)
     RETURNING *`,
    [deviceId, reply, position === null ? null : JSON.stringify(position), seq ?? null, failed],
  );
  return rows[0] ? toCommand(rows[0]) : null;
}
