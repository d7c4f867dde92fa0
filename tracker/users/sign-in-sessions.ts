// Users' sign-in sessions, kept server-side: the user holds a random id (the dashboard puts it in
// an HttpOnly cookie, dashboard/session-cookie.ts) and the database keeps its digest, the user, a
// CSRF token and the expiry. A session ends after DASHBOARD_SESSION_IDLE_MINUTES without use and
// DASHBOARD_SESSION_MAX_HOURS after sign-in, whichever comes first; use is written at most once a
// minute.
import type { TrackerConfig } from '../../shared/config.js';
import type { Queryable } from '../storage/db.js';
import { digest, randomSecret } from './secrets.js';

export type SessionSettings = Pick<TrackerConfig, 'DASHBOARD_SESSION_IDLE_MINUTES' | 'DASHBOARD_SESSION_MAX_HOURS'>;

export interface SignInSession {
  idHash: string;
  userId: string;
  email: string;
  accountId: string;
  accountName: string;
  csrfToken: string;
}

interface Row {
  id_hash: string;
  user_id: string;
  csrf_token: string;
  email: string;
  account_id: string;
  account_name: string;
  stale: boolean;
}

const NEXT_EXPIRY = `least(created_at + make_interval(hours => $2::int), now() + make_interval(mins => $3::int))`;

/** Starts a session for a user who just proved their password; returns its id, shown to the user only. */
export async function createSignInSession(db: Queryable, userId: string, settings: SessionSettings): Promise<string> {
  const id = randomSecret();
  await db.query(
    `INSERT INTO dashboard_sessions (id_hash, user_id, csrf_token, expires_at)
     VALUES ($1, $4, $5, least(now() + make_interval(hours => $2::int), now() + make_interval(mins => $3::int)))`,
    [digest(id), settings.DASHBOARD_SESSION_MAX_HOURS, settings.DASHBOARD_SESSION_IDLE_MINUTES, userId, randomSecret()],
  );
  return id;
}

/** The live session of this id, or null; moves its idle expiry forward. */
export async function findSignInSession(db: Queryable, id: string, settings: SessionSettings): Promise<SignInSession | null> {
  const rows = await db.query<Row>(
    `SELECT s.id_hash, s.user_id, s.csrf_token, u.email, u.account_id, a.name AS account_name, s.seen_at < now() - interval '1 minute' AS stale
     FROM dashboard_sessions s JOIN dashboard_users u ON u.id = s.user_id JOIN accounts a ON a.id = u.account_id
     WHERE s.id_hash = $1 AND s.expires_at > now()`,
    [digest(id)],
  );
  const r = rows[0];
  if (!r) return null;
  if (r.stale) {
    await db.query(`UPDATE dashboard_sessions SET seen_at = now(), expires_at = ${NEXT_EXPIRY} WHERE id_hash = $1`, [
      r.id_hash,
      settings.DASHBOARD_SESSION_MAX_HOURS,
      settings.DASHBOARD_SESSION_IDLE_MINUTES,
    ]);
  }
  return { idHash: r.id_hash, userId: r.user_id, email: r.email, accountId: r.account_id, accountName: r.account_name, csrfToken: r.csrf_token };
}

export async function deleteSignInSession(db: Queryable, session: SignInSession): Promise<void> {
  await db.query('DELETE FROM dashboard_sessions WHERE id_hash = $1', [session.idHash]);
}

/** Removes sessions past their expiry (they are already refused; this keeps the table small). */
export async function sweepSessions(db: Queryable): Promise<void> {
  await db.query('DELETE FROM dashboard_sessions WHERE expires_at <= now()');
}
