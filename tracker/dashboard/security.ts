// What protects every dashboard request (beside the strict page headers of http/page-headers.ts):
// an Origin check on every POST, the session's CSRF token on every POST made in a session,
// and the session itself on every page but sign-in and set-password.
import type { Request, RequestHandler, Response } from 'express';
import type { TrackerConfig } from '../../shared/config.js';
import { ApiError } from '../../shared/errors.js';
import { secretsEqual } from '../../shared/internal.js';
import type { Db } from '../storage/db.js';
import type { SignInSession, SessionSettings } from '../users/sign-in-sessions.js';
import { cookie } from './client.js';
import { BASE } from './layout.js';
import { currentSession, SESSION_COOKIE } from './session-cookie.js';

const CROSS_SITE = new ApiError('forbidden', 'This form was sent from another site, so it was refused.');
const STALE_FORM = new ApiError('forbidden', 'This form is out of date. Go back, reload the page and try again.');

function originOf(value: string | undefined): string | null {
  if (!value) return null;
  try {
    return new URL(value).origin;
  } catch {
    return null;
  }
}

/**
 * POSTs must come from a page of ours: the Origin header (or, when a browser leaves it out, the
 * Referer) must be PUBLIC_BASE_URL's origin. The request's Host is not trusted for this: it is
 * whatever the client sent. Neither header: refused.
 */
export function checkOrigin(config: Pick<TrackerConfig, 'PUBLIC_BASE_URL'>): RequestHandler {
  const configured = new URL(config.PUBLIC_BASE_URL).origin;
  return function checkOrigin(req, _res, next) {
    if (req.method !== 'POST') return next();
    const origin = req.headers.origin !== undefined ? originOf(req.headers.origin) : originOf(req.headers.referer);
    next(origin !== null && origin === configured ? undefined : CROSS_SITE);
  };
}

/** A form field compared in constant time with the expected token. */
export function tokenMatches(req: Request, expected: string): boolean {
  const given = (req.body as Record<string, unknown> | undefined)?._csrf;
  return typeof given === 'string' && secretsEqual(given, expected);
}

/**
 * Where to go after signing in: only a dashboard page of ours. Browsers and servers read %2e as a
 * dot (and some %2f or %5c as a slash), so encoded dots and slashes, dot segments and empty
 * segments are refused rather than interpreted.
 */
export function safeNext(value: unknown): string | null {
  if (typeof value !== 'string' || !/^\/dashboard\/[A-Za-z0-9/_.~%?=&-]*$/.test(value)) return null;
  const path = value.split('?')[0]!;
  return /%2e|%2f|%5c/i.test(value) || value.includes('..') || path.includes('//') || /\/\.(\/|$)/.test(path) ? null : value;
}

/**
 * Loads the session. Without one the browser is sent to sign in (and back to the page it asked
 * for, when that was a page), told so when its session had expired. POSTs must carry the
 * session's CSRF token.
 */
export function requireSession(db: Db, settings: SessionSettings): RequestHandler {
  return async function requireSession(req, res, next) {
    const session = await currentSession(db, req, settings);
    if (!session) {
      const query = new URLSearchParams();
      const back = req.method === 'GET' ? safeNext(req.originalUrl) : null;
      if (back) query.set('next', back);
      if (cookie(req, SESSION_COOKIE) !== undefined) query.set('expired', '1');
      return res.redirect(303, `${BASE}/login${query.size ? `?${query}` : ''}`);
    }
    res.locals.session = session;
    next(req.method === 'POST' && !tokenMatches(req, session.csrfToken) ? STALE_FORM : undefined);
  };
}

export function sessionOf(res: Response): SignInSession {
  return res.locals.session as SignInSession;
}

/** The record if it belongs to the signed-in owner's account; otherwise 404, as if there were none. */
export function ownRecord<T extends { accountId: string }>(res: Response, record: T | null, message: string): T {
  if (!record || record.accountId !== sessionOf(res).accountId) throw new ApiError('not_found', message);
  return record;
}
