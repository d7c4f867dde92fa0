// Records created by inbound webhooks, stored one table per kind and always read within one
// account, newest first by their time.
import type { Queryable } from '../storage/db.js';
import type { RecordInput } from './input.js';
import type { RecordKind } from './kinds.js';

export interface StoredRecord {
  id: string;
  deviceId: string | null;
  time: Date;
  receivedAt: Date;
  webhookId: string;
  /** The kind's own fields by name. */
  values: Record<string, unknown>;
  extra: Record<string, unknown>;
}

export interface NewRecord extends RecordInput {
  id: string;
  accountId: string;
  webhookId: string;
  receivedAt: Date;
}

export async function insertRecord(db: Queryable, kind: RecordKind, r: NewRecord): Promise<void> {
  const columns = ['id', 'account_id', 'webhook_id', 'device_id', 'occurred_at', 'received_at', 'extra', ...kind.fields.map((f) => f.column)];
  const params = [r.id, r.accountId, r.webhookId, r.deviceId, r.time ?? r.receivedAt, r.receivedAt, JSON.stringify(r.extra), ...kind.fields.map((f) => r.values[f.name] ?? null)];
  await db.query(`INSERT INTO ${kind.table} (${columns.join(', ')}) VALUES (${params.map((_, i) => `$${i + 1}`).join(', ')})`, params);
}

export interface RecordQuery {
  accountId: string;
  deviceId: string | null;
  from: Date | null;
  to: Date | null;
  /** Keyset: continue after this (time, id), newest first. */
  before: { time: Date; id: string } | null;
  limit: number;
}

type Row = Record<string, unknown> & { id: string; device_id: string | null; occurred_at: Date; received_at: Date; webhook_id: string; extra: Record<string, unknown> };

export async function listRecords(db: Queryable, kind: RecordKind, q: RecordQuery): Promise<StoredRecord[]> {
  const params: unknown[] = [q.accountId];
  const where = ['account_id = $1'];
  const filter = (condition: string, value: unknown) => {
    params.push(value);
    where.push(condition.replace('?', `$${params.length}`));
  };
  if (q.deviceId !== null) filter('device_id = ?', q.deviceId);
  if (q.from) filter('occurred_at >= ?', q.from);
  if (q.to) filter('occurred_at <= ?', q.to);
  if (q.before) {
    params.push(q.before.time, q.before.id);
    where.push(`(occurred_at, id) < ($${params.length - 1}, $${params.length})`);
  }
  params.push(q.limit);
  const columns = kind.fields.map((f) => f.column).join(', ');
  const rows = await db.query<Row>(
    `SELECT id, device_id, occurred_at, received_at, webhook_id, extra, ${columns} FROM ${kind.table}
     WHERE ${where.join(' AND ')} ORDER BY occurred_at DESC, id DESC LIMIT $${params.length}`,
    params,
  );
  return rows.map((r) => ({
    id: r.id,
    deviceId: r.device_id,
    time: r.occurred_at,
    receivedAt: r.received_at,
    webhookId: r.webhook_id,
    values: Object.fromEntries(kind.fields.map((f) => [f.name, r[f.column]])),
    extra: r.extra,
  }));
}
