// Geofences, always read and written within one account. Every change bumps the account's rules
// version in the same transaction, so the ingest path picks it up with the next batch.
import { isForeignKeyViolation } from '../../shared/db-errors.js';
import { ApiError } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { bumpRulesVersion } from '../accounts/repository.js';
import type { Db, Queryable } from '../storage/db.js';
import type { Shape } from './shape.js';

/** Each position is tested against every geofence of its account: a bound keeps that cheap. */
export const MAX_GEOFENCES_PER_ACCOUNT = 1000;

export interface Geofence {
  id: string;
  accountId: string;
  name: string;
  description: string;
  shape: Shape;
  createdAt: Date;
  updatedAt: Date;
}

export interface GeofenceInput {
  name: string;
  description: string;
  shape: Shape;
}

interface Row {
  id: string;
  account_id: string;
  name: string;
  description: string;
  shape: Shape;
  created_at: Date;
  updated_at: Date;
}

const toGeofence = (r: Row): Geofence => ({ id: r.id, accountId: r.account_id, name: r.name, description: r.description, shape: r.shape, createdAt: r.created_at, updatedAt: r.updated_at });

/** Oldest first; `after` continues past a (createdAt, id). */
export async function listGeofences(db: Queryable, accountId: string, after: { createdAt: Date; id: string } | null, limit: number): Promise<Geofence[]> {
  const rows = after
    ? await db.query<Row>('SELECT * FROM geofences WHERE account_id = $1 AND (created_at, id) > ($2, $3) ORDER BY created_at, id LIMIT $4', [accountId, after.createdAt.toISOString(), after.id, limit])
    : await db.query<Row>('SELECT * FROM geofences WHERE account_id = $1 ORDER BY created_at, id LIMIT $2', [accountId, limit]);
  return rows.map(toGeofence);
}

export async function findGeofence(db: Queryable, accountId: string, id: string): Promise<Geofence | null> {
  const rows = await db.query<Row>('SELECT * FROM geofences WHERE account_id = $1 AND id = $2', [accountId, id]);
  return rows[0] ? toGeofence(rows[0]) : null;
}

export async function createGeofence(db: Db, accountId: string, input: GeofenceInput): Promise<Geofence> {
  return db.transaction(async (tx) => {
    await bumpRulesVersion(tx, accountId); // also locks the account: the count below holds
    const [{ n }] = (await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM geofences WHERE account_id = $1', [accountId])) as [{ n: number }];
    if (n >= MAX_GEOFENCES_PER_ACCOUNT) throw new ApiError('conflict', `an account may have at most ${MAX_GEOFENCES_PER_ACCOUNT} geofences`);
    const rows = await tx.query<Row>('INSERT INTO geofences (id, account_id, name, description, shape) VALUES ($1, $2, $3, $4, $5) RETURNING *', [
      newId('gfn'),
      accountId,
      input.name,
      input.description,
      JSON.stringify(input.shape),
    ]);
    return toGeofence(rows[0]!);
  });
}

export async function replaceGeofence(db: Db, accountId: string, id: string, input: GeofenceInput): Promise<Geofence | null> {
  return db.transaction(async (tx) => {
    const rows = await tx.query<Row>('UPDATE geofences SET name = $3, description = $4, shape = $5, updated_at = now() WHERE account_id = $1 AND id = $2 RETURNING *', [
      accountId,
      id,
      input.name,
      input.description,
      JSON.stringify(input.shape),
    ]);
    if (rows[0]) await bumpRulesVersion(tx, accountId);
    return rows[0] ? toGeofence(rows[0]) : null;
  });
}

/** False when there is no such geofence; a conflict while a rule uses it. */
export async function deleteGeofence(db: Db, accountId: string, id: string): Promise<boolean> {
  const inUse = (rules: string[]) => new ApiError('conflict', `geofence ${id} is used by rule ${rules.join(', ')}; change or delete the rule first`);
  try {
    return await db.transaction(async (tx) => {
      const users = await tx.query<{ id: string }>('SELECT id FROM rules WHERE account_id = $1 AND geofence_id = $2 ORDER BY id LIMIT 3', [accountId, id]);
      if (users.length > 0) throw inUse(users.map((u) => u.id));
      const rows = await tx.query('DELETE FROM geofences WHERE account_id = $1 AND id = $2 RETURNING id', [accountId, id]);
      if (rows.length > 0) await bumpRulesVersion(tx, accountId);
      return rows.length > 0;
    });
  } catch (err) {
    // A rule naming it was committed while this ran.
    if (isForeignKeyViolation(err)) throw inUse(['(new)']);
    throw err;
  }
}
