// Users: the people of an account, who sign in with an email address and a password.
// An email address belongs to one user, and a user to one account.
import { z } from 'zod';
import { isUniqueViolation } from '../../shared/db-errors.js';
import { ApiError } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import type { Queryable } from '../storage/db.js';

/** Addresses are compared in lower case, as mail providers treat them. */
export const email = z
  .string({ error: 'email is required' })
  .trim()
  .toLowerCase()
  .max(254, 'email must be at most 254 characters')
  .pipe(z.email({ error: 'email must be an email address such as owner@example.com' }));

export interface DashboardUser {
  id: string;
  accountId: string;
  email: string;
  passwordHash: string | null;
  createdAt: Date;
  passwordSetAt: Date | null;
}

interface Row {
  id: string;
  account_id: string;
  email: string;
  password_hash: string | null;
  created_at: Date;
  password_set_at: Date | null;
}

const toUser = (r: Row): DashboardUser => ({
  id: r.id,
  accountId: r.account_id,
  email: r.email,
  passwordHash: r.password_hash,
  createdAt: r.created_at,
  passwordSetAt: r.password_set_at,
});

export async function createUser(db: Queryable, u: { accountId: string; email: string }): Promise<DashboardUser> {
  try {
    const rows = await db.query<Row>('INSERT INTO dashboard_users (id, account_id, email) VALUES ($1, $2, $3) RETURNING *', [newId('usr'), u.accountId, u.email]);
    return toUser(rows[0]!);
  } catch (err) {
    if (isUniqueViolation(err)) throw new ApiError('conflict', `a dashboard user with email ${u.email} already exists`);
    throw err;
  }
}

export async function findUserByEmail(db: Queryable, address: string): Promise<DashboardUser | null> {
  const rows = await db.query<Row>('SELECT * FROM dashboard_users WHERE email = $1', [address]);
  return rows[0] ? toUser(rows[0]) : null;
}

export async function listUsers(db: Queryable, accountId: string): Promise<DashboardUser[]> {
  const rows = await db.query<Row>('SELECT * FROM dashboard_users WHERE account_id = $1 ORDER BY email', [accountId]);
  return rows.map(toUser);
}

/** Removes the user; their sign-in sessions go with them, so they are signed out at once. */
export async function removeUser(db: Queryable, address: string): Promise<DashboardUser | null> {
  const rows = await db.query<Row>('DELETE FROM dashboard_users WHERE email = $1 RETURNING *', [address]);
  return rows[0] ? toUser(rows[0]) : null;
}

/** Replaces the user's password link (only the newest one works). */
export async function storePasswordLink(db: Queryable, userId: string, linkHash: string, expiresAt: Date): Promise<void> {
  await db.query('UPDATE dashboard_users SET password_link_hash = $2, password_link_expires_at = $3 WHERE id = $1', [userId, linkHash, expiresAt.toISOString()]);
}

/** The user whose unexpired password link has this digest. */
export async function findUserByLink(db: Queryable, linkHash: string): Promise<DashboardUser | null> {
  const rows = await db.query<Row>('SELECT * FROM dashboard_users WHERE password_link_hash = $1 AND password_link_expires_at > now()', [linkHash]);
  return rows[0] ? toUser(rows[0]) : null;
}

/**
 * Sets the password through a link and spends the link, in one statement: of two uses of the same
 * link, exactly one succeeds. Every session of the user ends. Null when the link is not valid.
 */
export async function setPasswordByLink(db: Queryable, linkHash: string, passwordHash: string): Promise<DashboardUser | null> {
  const rows = await db.query<Row>(
    `UPDATE dashboard_users SET password_hash = $2, password_set_at = now(), password_link_hash = NULL, password_link_expires_at = NULL
     WHERE password_link_hash = $1 AND password_link_expires_at > now() RETURNING *`,
    [linkHash, passwordHash],
  );
  if (!rows[0]) return null;
  await db.query('DELETE FROM dashboard_sessions WHERE user_id = $1', [rows[0].id]);
  return toUser(rows[0]);
}

/** The email addresses of some of an account's users, by user id (a command log names who sent each command). */
export async function userEmails(db: Queryable, accountId: string, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.query<{ id: string; email: string }>('SELECT id, email FROM dashboard_users WHERE account_id = $1 AND id = ANY($2::text[])', [accountId, [...ids]]);
  return new Map(rows.map((r) => [r.id, r.email]));
}
