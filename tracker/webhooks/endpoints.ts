// Outbound webhook endpoints: the URLs an account's events are delivered to. The secret is read only to sign
// (and returned once, at creation); listings never carry it.
import { newId } from '../../shared/ids.js';
import type { Queryable } from '../storage/db.js';
import type { Format } from './formats/index.js';

/** Channel on which tracker processes are told that deliveries are waiting. */
export const DELIVERIES_CHANNEL = 'webhook_deliveries';

export interface Endpoint {
  id: string;
  accountId: string;
  url: string;
  /** Event types wanted; ["*"] for all. */
  events: string[];
  format: Format;
  status: 'enabled' | 'disabled';
  disabledAt: Date | null;
  disabledReason: string | null;
  failingSince: Date | null;
  lastSuccessAt: Date | null;
  createdAt: Date;
}

interface Row {
  id: string;
  account_id: string;
  url: string;
  events: string[];
  format: Format;
  status: 'enabled' | 'disabled';
  disabled_at: Date | null;
  disabled_reason: string | null;
  failing_since: Date | null;
  last_success_at: Date | null;
  created_at: Date;
}

const COLUMNS = 'id, account_id, url, events, format, status, disabled_at, disabled_reason, failing_since, last_success_at, created_at';

const toEndpoint = (r: Row): Endpoint => ({
  id: r.id,
  accountId: r.account_id,
  url: r.url,
  events: r.events,
  format: r.format,
  status: r.status,
  disabledAt: r.disabled_at,
  disabledReason: r.disabled_reason,
  failingSince: r.failing_since,
  lastSuccessAt: r.last_success_at,
  createdAt: r.created_at,
});

export async function insertEndpoint(db: Queryable, e: { accountId: string; url: string; events: string[]; format: Format; secret: string }): Promise<Endpoint> {
  const rows = await db.query<Row>(
    `INSERT INTO webhook_endpoints (id, account_id, url, events, format, secret) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
    [newId('whk'), e.accountId, e.url, e.events, e.format, e.secret],
  );
  return toEndpoint(rows[0]!);
}

export async function listEndpoints(db: Queryable, accountId: string): Promise<(Endpoint & { pending: number })[]> {
  const rows = await db.query<Row & { pending: number }>(
    `SELECT ${COLUMNS.replace(/(\w+)/g, 'e.$1')},
            (SELECT count(*)::int FROM webhook_deliveries d WHERE d.endpoint_id = e.id AND d.status = 'pending') AS pending
     FROM webhook_endpoints e WHERE e.account_id = $1 ORDER BY e.created_at, e.id`,
    [accountId],
  );
  return rows.map((r) => ({ ...toEndpoint(r), pending: r.pending }));
}

export async function findEndpoint(db: Queryable, id: string): Promise<Endpoint | null> {
  const rows = await db.query<Row>(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE id = $1`, [id]);
  return rows[0] ? toEndpoint(rows[0]) : null;
}

export async function endpointSecret(db: Queryable, id: string): Promise<string | null> {
  const rows = await db.query<{ secret: string }>('SELECT secret FROM webhook_endpoints WHERE id = $1', [id]);
  return rows[0]?.secret ?? null;
}

/** Removes the endpoint with its pending deliveries and its log. */
export async function removeEndpoint(db: Queryable, id: string): Promise<boolean> {
  return (await db.query('DELETE FROM webhook_endpoints WHERE id = $1 RETURNING id', [id])).length > 0;
}

/** Enables the endpoint again; deliveries that waited are due at once and the workers are woken. */
export async function enableEndpoint(db: Queryable, id: string): Promise<Endpoint | null> {
  const rows = await db.query<Row>(
    `UPDATE webhook_endpoints SET status = 'enabled', disabled_at = NULL, disabled_reason = NULL, failing_since = NULL, paused_until = NULL
     WHERE id = $1 RETURNING ${COLUMNS}`,
    [id],
  );
  if (!rows[0]) return null;
  // Rows a worker is recording just now are left alone (they get their next time from it).
  await db.query(
    `UPDATE webhook_deliveries SET next_attempt_at = now()
     WHERE id IN (SELECT id FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'pending' FOR UPDATE SKIP LOCKED)`,
    [id],
  );
  await db.query('SELECT pg_notify($1, $2)', [DELIVERIES_CHANNEL, '']);
  return toEndpoint(rows[0]);
}

/**
 * Disables an enabled endpoint and tells its owner with an account-level alert (no device).
 * Returns false when it was already disabled (or removed), so the owner is told once.
 */
export async function disableEndpoint(db: Queryable, id: string, reason: string): Promise<boolean> {
  const rows = await db.query<{ account_id: string; url: string }>(
    `UPDATE webhook_endpoints SET status = 'disabled', disabled_at = now(), disabled_reason = $2
     WHERE id = $1 AND status = 'enabled' RETURNING account_id, url`,
    [id, reason],
  );
  const row = rows[0];
  if (!row) return false;
  await db.query(
    "INSERT INTO alerts (account_id, device_id, type, severity, message) VALUES ($1, NULL, 'webhook_disabled', 'warning', $2)",
    [row.account_id, `Webhook ${id} (${new URL(row.url).host}) was disabled: ${reason}. Fix the receiver, then enable the webhook again.`],
  );
  return true;
}
