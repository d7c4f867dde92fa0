// Bearer token authentication: the signature is checked with the public key only (the gateway
// cannot mint), verified tokens are cached, and whether the token is still active is asked of the
// tracker (cached briefly). The outcome is left in res.locals for the limits, then enforced.
import type { KeyObject } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import { ApiError } from '../shared/errors.js';
import { verifyToken, type TokenClaims } from '../shared/tokens.js';
import type { TokenStatus } from './token-status.js';

export interface AuthOptions {
  publicKey: KeyObject;
  isActive: TokenStatus;
  /** Verified tokens kept; they never expire, so only the count bounds the cache. */
  cacheSize: number;
}

export interface AuthLocals {
  caller?: TokenClaims;
  authFailure?: ApiError;
}

const CHALLENGE = { 'WWW-Authenticate': 'Bearer' };
const BEARER = /^Bearer +([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+) *$/i;

function unauthorized(message: string): ApiError {
  return new ApiError('unauthorized', message, CHALLENGE);
}

const MISSING = unauthorized('a bearer token is required');
const MALFORMED = unauthorized('the Authorization header must be "Bearer <token>"');
const INVALID = unauthorized('the token is invalid');
const INACTIVE = unauthorized('the token is revoked or unknown');

/**
 * Finds out who is calling. Never answers by itself: a failure is stored as
 * res.locals.authFailure so that guessing is counted per address before the 401 goes out.
 */
export function authenticate(opts: AuthOptions): RequestHandler {
  if (!opts.publicKey || opts.publicKey.type !== 'public') throw new Error('authenticate: publicKey must be a public KeyObject');
  if (typeof opts.isActive !== 'function') throw new Error('authenticate: isActive is required');
  if (!(opts.cacheSize >= 1)) throw new Error('authenticate: cacheSize must be at least 1');
  const verified = new Map<string, TokenClaims>();

  function verify(token: string): TokenClaims | null {
    const hit = verified.get(token);
    if (hit) return hit;
    const claims = verifyToken(token, opts.publicKey);
    if (claims) {
      verified.set(token, claims);
      if (verified.size > opts.cacheSize) verified.delete(verified.keys().next().value!);
    }
    return claims;
  }

  function settle(locals: AuthLocals, claims: TokenClaims, active: boolean, next: (err?: unknown) => void) {
    if (active) locals.caller = claims;
    else locals.authFailure = INACTIVE;
    next();
  }

  return function authenticate(req, res, next) {
    const locals = res.locals as AuthLocals;
    const header = req.headers.authorization;
    if (!header) {
      locals.authFailure = MISSING;
      return next();
    }
    const token = BEARER.exec(header)?.[1];
    const claims = token ? verify(token) : null;
    if (!claims) {
      locals.authFailure = token ? INVALID : MALFORMED;
      return next();
    }
    const active = opts.isActive(claims.tokenId, claims.accountId);
    if (typeof active === 'boolean') return settle(locals, claims, active, next);
    active.then((a) => settle(locals, claims, a, next), next);
  };
}

/** Ends the request with the stored 401 when no valid token was presented. */
export function requireCaller(): RequestHandler {
  return function requireCaller(_req, res, next) {
    const locals = res.locals as AuthLocals;
    next(locals.caller ? undefined : (locals.authFailure ?? MISSING));
  };
}

export function callerOf(res: Response): TokenClaims | undefined {
  return (res.locals as AuthLocals).caller;
}
