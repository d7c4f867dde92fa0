// Inbound webhooks, the URLs outside systems call in on (outbound ones are webhooks/): each belongs
// to one account and has one action. The secret's hash is read only to check a call; listings
// never carry it.
import { newId } from '../../shared/ids.js';
import type { InboundAction } from '../../shared/inbound.js';
import type { Queryable } from '../storage/db.js';
import { hashSecret, newSecret } from './secret.js';

export interface InboundWebhook {
  id: string;
  accountId: string;
  name: string;
  action: InboundAction;
  createdAt: Date;
}

interface Row {
  id: string;
  account_id: string;
  name: string;
  action: InboundAction;
  created_at: Date;
}

const toWebhook = (r: Row): InboundWebhook => ({ id: r.id, accountId: r.account_id, name: r.name, action: r.action, createdAt: r.created_at });

/** Creates a webhook with a new secret: the secret is returned this once and stored only as its hash. */
export async function createInboundWebhook(db: Queryable, w: { accountId: string; name: string; action: InboundAction }): Promise<{ webhook: InboundWebhook; secret: string }> {
  const secret = newSecret();
  const rows = await db.query<Row>(
    'INSERT INTO inbound_webhooks (id, account_id, name, action, secret_hash) VALUES ($1, $2, $3, $4, $5) RETURNING id, account_id, name, action, created_at',
    [newId('inb'), w.accountId, w.name, w.action, hashSecret(secret)],
  );
  return { webhook: toWebhook(rows[0]!), secret };
}

/** The address outside systems call (the secret goes in its `secret` query parameter). */
export function inboundUrl(publicBaseUrl: string, id: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/api/inbound/${id}`;
}

/** The webhook a call names, with its secret's hash; null for an unknown id. */
export async function findInboundWebhookForCall(db: Queryable, id: string): Promise<(InboundWebhook & { secretHash: Buffer }) | null> {
  const rows = await db.query<Row & { secret_hash: Uint8Array }>('SELECT * FROM inbound_webhooks WHERE id = $1', [id]);
  const r = rows[0];
  return r ? { ...toWebhook(r), secretHash: Buffer.from(r.secret_hash) } : null;
}

export async function findInboundWebhook(db: Queryable, id: string): Promise<InboundWebhook | null> {
  const rows = await db.query<Row>('SELECT id, account_id, name, action, created_at FROM inbound_webhooks WHERE id = $1', [id]);
  return rows[0] ? toWebhook(rows[0]) : null;
}

/** The account's webhooks, oldest first, each with the time of its latest call. */
export async function listInboundWebhooks(db: Queryable, accountId: string): Promise<(InboundWebhook & { lastCallAt: Date | null })[]> {
  const rows = await db.query<Row & { last_call_at: Date | null }>(
    `SELECT w.id, w.account_id, w.name, w.action, w.created_at,
            (SELECT c.received_at FROM inbound_calls c WHERE c.webhook_id = w.id ORDER BY c.received_at DESC, c.id DESC LIMIT 1) AS last_call_at
     FROM inbound_webhooks w WHERE w.account_id = $1 ORDER BY w.created_at, w.id`,
    [accountId],
  );
  return rows.map((r) => ({ ...toWebhook(r), lastCallAt: r.last_call_at }));
}

/** Removes the webhook with its call log and remembered responses; the records it created stay. */
export async function deleteInboundWebhook(db: Queryable, id: string): Promise<InboundWebhook | null> {
  const rows = await db.query<Row>('DELETE FROM inbound_webhooks WHERE id = $1 RETURNING id, account_id, name, action, created_at', [id]);
  return rows[0] ? toWebhook(rows[0]) : null;
}
