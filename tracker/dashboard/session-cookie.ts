// The dashboard's sign-in cookie: it carries the id of the user's sign-in session
// (users/sign-in-sessions.ts), HttpOnly, SameSite=Lax, Secure when the browser came over TLS, and
// only on the dashboard's paths.
import type { Request, Response } from 'express';
import type { Queryable } from '../storage/db.js';
import { createSignInSession, deleteSignInSession, findSignInSession, type SignInSession, type SessionSettings } from '../users/sign-in-sessions.js';
import { cookie, overTls } from './client.js';

export const SESSION_COOKIE = 'fleet_session';
const COOKIE_PATH = '/dashboard';

/** Starts a session for a user who just proved their password; sets the cookie. */
export async function startSession(db: Queryable, req: Request, res: Response, userId: string, settings: SessionSettings): Promise<void> {
  const id = await createSignInSession(db, userId, settings);
  res.cookie(SESSION_COOKIE, id, {
    httpOnly: true,
    sameSite: 'lax',
    secure: overTls(req),
    path: COOKIE_PATH,
    maxAge: settings.DASHBOARD_SESSION_MAX_HOURS * 3_600_000,
  });
}

/** The live session named by the request's cookie, or null. */
export async function currentSession(db: Queryable, req: Request, settings: SessionSettings): Promise<SignInSession | null> {
  const id = cookie(req, SESSION_COOKIE);
  return id ? findSignInSession(db, id, settings) : null;
}

export async function endSession(db: Queryable, req: Request, res: Response, session: SignInSession): Promise<void> {
  await deleteSignInSession(db, session);
  res.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'lax', secure: overTls(req), path: COOKIE_PATH });
}
