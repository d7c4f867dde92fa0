// Alerts: opened by events (see events/alerting.ts), listed newest first within one account,
// acknowledged once.
import type { Queryable } from '../storage/db.js';

export type Severity = 'critical' | 'warning' | 'info';

export type AlertStatus = 'open' | 'acknowledged';

export interface Alert {
  id: number;
  type: string;
  severity: string;
  /** Null for an alert about the account itself (a webhook endpoint disabled). */
  deviceId: string | null;
  message: string;
  status: AlertStatus;
  createdAt: Date;
  acknowledgedAt: Date | null;
}

interface Row {
  id: number;
  type: string;
  severity: string;
  device_id: string | null;
  message: string;
  status: AlertStatus;
  created_at: Date;
  acknowledged_at: Date | null;
}

const toAlert = (r: Row): Alert => ({ id: r.id, type: r.type, severity: r.severity, deviceId: r.device_id, message: r.message, status: r.status, createdAt: r.created_at, acknowledgedAt: r.acknowledged_at });
const COLUMNS = 'id, type, severity, device_id, message, status, created_at, acknowledged_at';

export interface AlertQuery {
  accountId: string;
  status: AlertStatus;
  since: Date | null;
  /** Keyset: continue after this (createdAt, id), newest first. */
  before: { createdAt: Date; id: number } | null;
  limit: number;
}

export async function listAlerts(db: Queryable, q: AlertQuery): Promise<Alert[]> {
  const params: unknown[] = [q.accountId, q.status];
  let sql = `SELECT ${COLUMNS} FROM alerts WHERE account_id = $1 AND status = $2`;
  if (q.since) {
    params.push(q.since.toISOString());
    sql += ` AND created_at >= $${params.length}`;
  }
  if (q.before) {
    params.push(q.before.createdAt.toISOString(), q.before.id);
    sql += ` AND (created_at, id) < ($${params.length - 1}, $${params.length})`;
  }
  params.push(q.limit);
  sql += ` ORDER BY created_at DESC, id DESC LIMIT $${params.length}`;
  return (await db.query<Row>(sql, params)).map(toAlert);
}

export async function insertAlert(db: Queryable, a: { accountId: string; deviceId: string; type: string; severity: string; message: string }): Promise<Alert> {
  const rows = await db.query<Row>(
    `INSERT INTO alerts (account_id, device_id, type, severity, message) VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
    [a.accountId, a.deviceId, a.type, a.severity, a.message],
  );
  return toAlert(rows[0]!);
}

/**
 * Marks an open alert acknowledged; acknowledging it again changes nothing (same time). Null when
 * the account has no such alert.
 */
export async function acknowledgeAlert(db: Queryable, accountId: string, id: number): Promise<Alert | null> {
  const rows = await db.query<Row>(
    `UPDATE alerts SET status = 'acknowledged', acknowledged_at = coalesce(acknowledged_at, now()) WHERE account_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [accountId, id],
  );
  return rows[0] ? toAlert(rows[0]) : null;
}
