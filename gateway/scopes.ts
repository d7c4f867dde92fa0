// Scope check: the route table names the scope each route needs; a token without it gets a 403
// that says which scope is missing, in the body and in the RFC 6750 challenge.
import type { RequestHandler } from 'express';
import { ApiError } from '../shared/errors.js';
import { SCOPES, type Scope } from '../shared/scopes.js';
import { callerOf } from './auth.js';
import { matchOf } from './routes.js';

function insufficient(scope: Scope): ApiError {
  return new ApiError('forbidden', `the token lacks the "${scope}" scope`, {
    'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${scope}"`,
  });
}

// Built once: the errors differ only by scope.
const FORBIDDEN = Object.fromEntries(SCOPES.map((s) => [s, insufficient(s)])) as Record<Scope, ApiError>;

/** Runs after authentication: the caller is known; the route says what it needs. */
export function requireScope(): RequestHandler {
  return function requireScope(_req, res, next) {
    const needed = matchOf(res).route.scope;
    const caller = callerOf(res);
    if (!needed || (caller && caller.scopes.includes(needed))) return next();
    next(FORBIDDEN[needed]);
  };
}
