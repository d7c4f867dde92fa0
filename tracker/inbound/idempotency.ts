// Idempotency-Key: the first response given to a key is remembered per inbound webhook for 24 hours and
// given again to every later call with that key. The table's primary key (webhook, key) is what
// lets concurrent retries create exactly one record: the second insert waits for the first
// transaction and then finds the key taken.
import type { Queryable } from '../storage/db.js';

export const IDEMPOTENCY_HOURS = 24;

export interface Remembered {
  bodyHash: Buffer;
  status: number;
  response: unknown;
  recordId: string | null;
}

interface Row {
  body_hash: Uint8Array;
  status: number;
  response: unknown;
  record_id: string | null;
}

/** The response remembered for this key, if it was given within the last 24 hours. */
export async function findRemembered(db: Queryable, webhookId: string, key: string): Promise<Remembered | null> {
  const rows = await db.query<Row>(
    `SELECT body_hash, status, response, record_id FROM inbound_idempotency
     WHERE webhook_id = $1 AND key = $2 AND created_at > now() - make_interval(hours => $3)`,
    [webhookId, key, IDEMPOTENCY_HOURS],
  );
  const r = rows[0];
  return r ? { bodyHash: Buffer.from(r.body_hash), status: r.status, response: r.response, recordId: r.record_id } : null;
}

/**
 * Takes the key for this response (an expired entry is replaced). False when another call holds the
 * key: after that call's transaction ends, findRemembered sees its response.
 */
export async function remember(db: Queryable, e: Remembered & { webhookId: string; key: string }): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO inbound_idempotency AS i (webhook_id, key, body_hash, status, response, record_id) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (webhook_id, key) DO UPDATE SET body_hash = excluded.body_hash, status = excluded.status, response = excluded.response,
       record_id = excluded.record_id, created_at = now()
     WHERE i.created_at <= now() - make_interval(hours => $7)
     RETURNING 1`,
    [e.webhookId, e.key, e.bodyHash, e.status, JSON.stringify(e.response), e.recordId, IDEMPOTENCY_HOURS],
  );
  return rows.length === 1;
}

/** Drops keys past their 24 hours; returns how many went. */
export async function forgetExpired(db: Queryable): Promise<number> {
  const rows = await db.query('DELETE FROM inbound_idempotency WHERE created_at <= now() - make_interval(hours => $1) RETURNING 1', [IDEMPOTENCY_HOURS]);
  return rows.length;
}
