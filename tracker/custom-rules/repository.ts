// Custom rules, always read and written within one account. A rule's geofence and devices must be
// the account's own; every change bumps the account's rules version in the same transaction.
import { ApiError } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { bumpRulesVersion } from '../accounts/repository.js';
import type { Severity } from '../alerts/repository.js';
import type { Db, Queryable } from '../storage/db.js';
import type { Condition } from './condition.js';
import type { TimeWindow } from './time-window.js';

/** Every enabled rule is evaluated on every position of its devices: a bound keeps that cheap. */
export const MAX_RULES_PER_ACCOUNT = 100;

export interface RuleInput {
  name: string;
  enabled: boolean;
  severity: Severity;
  condition: Condition;
  geofenceId: string | null;
  timeWindow: TimeWindow | null;
  deviceIds: string[] | null;
}

export interface Rule extends RuleInput {
  id: string;
  accountId: string;
  createdAt: Date;
  updatedAt: Date;
}

interface Row {
  id: string;
  account_id: string;
  name: string;
  enabled: boolean;
  severity: Severity;
  condition: Condition;
  geofence_id: string | null;
  time_window: TimeWindow | null;
  device_ids: string[] | null;
  created_at: Date;
  updated_at: Date;
}

const toRule = (r: Row): Rule => ({
  id: r.id,
  accountId: r.account_id,
  name: r.name,
  enabled: r.enabled,
  severity: r.severity,
  condition: r.condition,
  geofenceId: r.geofence_id,
  timeWindow: r.time_window,
  deviceIds: r.device_ids,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** Oldest first; `after` continues past a (createdAt, id). */
export async function listRules(db: Queryable, accountId: string, after: { createdAt: Date; id: string } | null, limit: number): Promise<Rule[]> {
  const rows = after
    ? await db.query<Row>('SELECT * FROM rules WHERE account_id = $1 AND (created_at, id) > ($2, $3) ORDER BY created_at, id LIMIT $4', [accountId, after.createdAt.toISOString(), after.id, limit])
    : await db.query<Row>('SELECT * FROM rules WHERE account_id = $1 ORDER BY created_at, id LIMIT $2', [accountId, limit]);
  return rows.map(toRule);
}

export async function findRule(db: Queryable, accountId: string, id: string): Promise<Rule | null> {
  const rows = await db.query<Row>('SELECT * FROM rules WHERE account_id = $1 AND id = $2', [accountId, id]);
  return rows[0] ? toRule(rows[0]) : null;
}

/** References to another account's (or no) geofence or device are refused, naming the field. */
async function checkReferences(tx: Queryable, accountId: string, input: RuleInput): Promise<void> {
  if (input.geofenceId !== null) {
    const found = await tx.query('SELECT id FROM geofences WHERE account_id = $1 AND id = $2 FOR SHARE', [accountId, input.geofenceId]);
    if (found.length === 0) throw new ApiError('bad_request', `invalid body field "geofenceId": no geofence ${input.geofenceId}`);
  }
  if (input.deviceIds !== null) {
    const found = new Set((await tx.query<{ id: string }>('SELECT id FROM devices WHERE account_id = $1 AND id = ANY($2)', [accountId, input.deviceIds])).map((r) => r.id));
    const missing = input.deviceIds.find((id) => !found.has(id));
    if (missing !== undefined) throw new ApiError('bad_request', `invalid body field "deviceIds": no device ${missing}`);
  }
}

const values = (input: RuleInput) => [
  input.name,
  input.enabled,
  input.severity,
  JSON.stringify(input.condition),
  input.geofenceId,
  input.timeWindow ? JSON.stringify(input.timeWindow) : null,
  input.deviceIds,
];

export async function createRule(db: Db, accountId: string, input: RuleInput): Promise<Rule> {
  return db.transaction(async (tx) => {
    await bumpRulesVersion(tx, accountId); // also locks the account: the count below holds
    const [{ n }] = (await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM rules WHERE account_id = $1', [accountId])) as [{ n: number }];
    if (n >= MAX_RULES_PER_ACCOUNT) throw new ApiError('conflict', `an account may have at most ${MAX_RULES_PER_ACCOUNT} rules`);
    await checkReferences(tx, accountId, input);
    const rows = await tx.query<Row>(
      `INSERT INTO rules (id, account_id, name, enabled, severity, condition, geofence_id, time_window, device_ids)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING *`,
      [newId('rul'), accountId, ...values(input)],
    );
    return toRule(rows[0]!);
  });
}

export async function replaceRule(db: Db, accountId: string, id: string, input: RuleInput): Promise<Rule | null> {
  return db.transaction(async (tx) => {
    if (!(await findRule(tx, accountId, id))) return null;
    await checkReferences(tx, accountId, input);
    const rows = await tx.query<Row>(
      `UPDATE rules SET name = $3, enabled = $4, severity = $5, condition = $6, geofence_id = $7, time_window = $8, device_ids = $9, updated_at = now()
       WHERE account_id = $1 AND id = $2 RETURNING *`,
      [accountId, id, ...values(input)],
    );
    await bumpRulesVersion(tx, accountId);
    return toRule(rows[0]!);
  });
}

export async function deleteRule(db: Db, accountId: string, id: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const rows = await tx.query('DELETE FROM rules WHERE account_id = $1 AND id = $2 RETURNING id', [accountId, id]);
    if (rows.length > 0) await bumpRulesVersion(tx, accountId);
    return rows.length > 0;
  });
}
