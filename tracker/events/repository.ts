// Events and the alerts they open: written together in the caller's transaction; listed newest
// first within one account.
import type { Telemetry } from '../positions/telemetry.js';
import type { Queryable } from '../storage/db.js';
import type { EventPosition, EventType, RaisedEvent, Severity, StoredEvent } from './types.js';

export interface NewEvent {
  accountId: string;
  deviceId: string;
  type: EventType;
  position: EventPosition | null;
  data: Record<string, unknown>;
  /** The alert to open with it, if it needs attention. */
  alert: { severity: Severity; message: string } | null;
  /** The telemetry at the event, handed to the listeners (not stored). */
  attributes: Telemetry;
}

const byId = (a: { id: number }, b: { id: number }) => a.id - b.id;

/**
 * Inserts the alerts, then the events that refer to them, one statement each. Identity values are
 * handed out in insertion order, which follows the input order (ORDER BY the ordinality), so the
 * returned ids, sorted, line up with the input.
 */
export async function insertEvents(tx: Queryable, events: readonly NewEvent[]): Promise<RaisedEvent[]> {
  if (events.length === 0) return [];
  const alerting = events.filter((e) => e.alert !== null);
  const alertIds = new Map<NewEvent, number>();
  if (alerting.length > 0) {
    const rows = await tx.query<{ id: number }>(
      `INSERT INTO alerts (account_id, device_id, type, severity, message)
       SELECT a, d, t, s, m FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS u(a, d, t, s, m, n) ORDER BY n
       RETURNING id`,
      [alerting.map((e) => e.accountId), alerting.map((e) => e.deviceId), alerting.map((e) => e.type), alerting.map((e) => e.alert!.severity), alerting.map((e) => e.alert!.message)],
    );
    rows.sort(byId).forEach((r, i) => alertIds.set(alerting[i]!, r.id));
  }
  const rows = await tx.query<{ id: number; created_at: Date }>(
    `INSERT INTO events (account_id, device_id, type, position, alert_id, data)
     SELECT a, d, t, p, al, x FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[], $5::bigint[], $6::jsonb[]) WITH ORDINALITY AS u(a, d, t, p, al, x, n) ORDER BY n
     RETURNING id, created_at`,
    [
      events.map((e) => e.accountId),
      events.map((e) => e.deviceId),
      events.map((e) => e.type),
      events.map((e) => (e.position ? JSON.stringify(e.position) : null)),
      events.map((e) => alertIds.get(e) ?? null),
      events.map((e) => JSON.stringify(e.data)),
    ],
  );
  return rows.sort(byId).map((r, i) => {
    const e = events[i]!;
    const alertId = alertIds.get(e);
    return {
      id: r.id,
      accountId: e.accountId,
      deviceId: e.deviceId,
      type: e.type,
      createdAt: r.created_at.toISOString(),
      position: e.position,
      alert: alertId !== undefined ? { id: alertId, ...e.alert! } : null,
      data: e.data,
      attributes: e.attributes,
    };
  });
}

export interface EventQuery {
  accountId: string;
  since: Date | null;
  type: EventType | null;
  deviceId: string | null;
  /** Keyset: continue after this (createdAt, id), newest first. */
  before: { createdAt: Date; id: number } | null;
  limit: number;
}

interface Row {
  id: number;
  account_id: string;
  device_id: string;
  type: EventType;
  created_at: Date;
  position: EventPosition | null;
  data: Record<string, unknown>;
  alert_id: number | null;
  severity: Severity | null;
  message: string | null;
}

export async function listEvents(db: Queryable, q: EventQuery): Promise<StoredEvent[]> {
  const params: unknown[] = [q.accountId];
  let sql = `SELECT e.id, e.account_id, e.device_id, e.type, e.created_at, e.position, e.data, e.alert_id, a.severity, a.message
             FROM events e LEFT JOIN alerts a ON a.id = e.alert_id WHERE e.account_id = $1`;
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  if (q.since) sql += ` AND e.created_at >= ${param(q.since.toISOString())}`;
  if (q.type) sql += ` AND e.type = ${param(q.type)}`;
  if (q.deviceId) sql += ` AND e.device_id = ${param(q.deviceId)}`;
  if (q.before) sql += ` AND (e.created_at, e.id) < (${param(q.before.createdAt.toISOString())}, ${param(q.before.id)})`;
  params.push(q.limit);
  sql += ` ORDER BY e.created_at DESC, e.id DESC LIMIT $${params.length}`;
  return (await db.query<Row>(sql, params)).map((r) => ({
    id: r.id,
    accountId: r.account_id,
    deviceId: r.device_id,
    type: r.type,
    createdAt: r.created_at.toISOString(),
    position: r.position,
    alert: r.alert_id !== null ? { id: r.alert_id, severity: r.severity!, message: r.message! } : null,
    data: r.data,
  }));
}
