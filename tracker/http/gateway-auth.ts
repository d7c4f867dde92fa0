// The tracker answers only the gateway: every non-health request must carry the link secret.
// The caller's identity (account, token, scopes) is read from the gateway's headers into res.locals.
import type { RequestHandler } from 'express';
import { ApiError } from '../../shared/errors.js';
import { INTERNAL_HEADERS, secretsEqual } from '../../shared/internal.js';
import { isScope, type Scope } from '../../shared/scopes.js';

export interface Caller {
  accountId: string;
  tokenId: string;
  scopes: Scope[];
}

export function gatewayAuth(secret: string): RequestHandler {
  return function gatewayAuth(req, _res, next) {
    const given = req.headers[INTERNAL_HEADERS.secret];
    if (typeof given !== 'string' || !secretsEqual(given, secret)) {
      return next(new ApiError('unauthorized', 'requests must come through the API gateway'));
    }
    next();
  };
}

/** The calling token's identity, as the gateway stated it; absent on inbound and admin calls. */
export function callerOf(headers: Record<string, string | string[] | undefined>): Caller | null {
  const accountId = headers[INTERNAL_HEADERS.accountId];
  const tokenId = headers[INTERNAL_HEADERS.tokenId];
  const scopes = headers[INTERNAL_HEADERS.scopes];
  if (typeof accountId !== 'string' || typeof tokenId !== 'string' || typeof scopes !== 'string') return null;
  const list = scopes.split(' ').filter(Boolean);
  return { accountId, tokenId, scopes: list.filter(isScope) };
}
