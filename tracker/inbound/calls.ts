// The call log of each inbound webhook: every call it received, accepted or refused, without its
// secret.
// Bounded: entries older than INBOUND_LOG_RETENTION_DAYS go, and each webhook keeps at most its
// INBOUND_LOG_MAX_CALLS newest entries, counted apart for calls refused as unauthorised (wrong
// secret), so a flood of those cannot push the webhook's real calls out of its log.
import { newId } from '../../shared/ids.js';
import type { Queryable } from '../storage/db.js';

export interface InboundCall {
  id: string;
  webhookId: string;
  receivedAt: Date;
  status: number;
  /** Why the call was refused (the message the caller got). */
  error: string | null;
  recordId: string | null;
  idempotencyKey: string | null;
  /** Answered with the response first given to its Idempotency-Key. */
  replayed: boolean;
  clientAddress: string | null;
  bodyBytes: number | null;
  /** The body, for log_only calls and refused ones (up to a size). */
  body: unknown;
}

export type NewCall = Omit<InboundCall, 'id' | 'receivedAt'> & { id?: string };

interface Row {
  id: string;
  webhook_id: string;
  received_at: Date;
  status: number;
  error: string | null;
  record_id: string | null;
  idempotency_key: string | null;
  replayed: boolean;
  client_address: string | null;
  body_bytes: number | null;
  body: unknown;
}

const toCall = (r: Row): InboundCall => ({
  id: r.id,
  webhookId: r.webhook_id,
  receivedAt: r.received_at,
  status: r.status,
  error: r.error,
  recordId: r.record_id,
  idempotencyKey: r.idempotency_key,
  replayed: r.replayed,
  clientAddress: r.client_address,
  bodyBytes: r.body_bytes,
  body: r.body,
});

export async function insertCall(db: Queryable, c: NewCall): Promise<string> {
  const id = c.id ?? newId('call');
  await db.query(
    `INSERT INTO inbound_calls (id, webhook_id, status, error, record_id, idempotency_key, replayed, client_address, body_bytes, body)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [id, c.webhookId, c.status, c.error, c.recordId, c.idempotencyKey, c.replayed, c.clientAddress, c.bodyBytes, c.body === null ? null : JSON.stringify(c.body)],
  );
  return id;
}

/** The webhook's newest calls first. */
export async function listCalls(db: Queryable, webhookId: string, limit: number): Promise<InboundCall[]> {
  const rows = await db.query<Row>('SELECT * FROM inbound_calls WHERE webhook_id = $1 ORDER BY received_at DESC, id DESC LIMIT $2', [webhookId, limit]);
  return rows.map(toCall);
}

/** Applies the log's bounds (the count per webhook, and apart per webhook for 401s); returns how many entries went. */
export async function pruneCalls(db: Queryable, bounds: { retentionDays: number; maxCalls: number }): Promise<number> {
  const old = await db.query('DELETE FROM inbound_calls WHERE received_at < now() - make_interval(days => $1) RETURNING 1', [bounds.retentionDays]);
  const over = await db.query(
    `DELETE FROM inbound_calls WHERE id IN (
       SELECT id FROM (SELECT id, row_number() OVER (PARTITION BY webhook_id, status = 401 ORDER BY received_at DESC, id DESC) AS n FROM inbound_calls) ranked
       WHERE n > $1)
     RETURNING 1`,
    [bounds.maxCalls],
  );
  return old.length + over.length;
}
