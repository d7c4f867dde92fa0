// Request helpers for the public routes: the caller's scope and account, and query validation
// whose 400s name the parameter.
import type { RequestHandler, Response } from 'express';
import type { z } from 'zod';
import { ApiError } from '../../shared/errors.js';
import type { Scope } from '../../shared/scopes.js';
import { callerOf, type Caller } from '../http/gateway-auth.js';
import { MAX_PAGE } from './schemas.js';

/** The gateway checks scopes first; the tracker checks again so no route is ever open by mistake. */
export function requireScope(scope: Scope): RequestHandler {
  return function requireScope(req, res, next) {
    const caller = callerOf(req.headers);
    if (!caller) return next(new ApiError('unauthorized'));
    if (!caller.scopes.includes(scope)) return next(new ApiError('forbidden', `this operation requires the "${scope}" scope`));
    res.locals.caller = caller;
    next();
  };
}

export function caller(res: Response): Caller {
  return res.locals.caller as Caller;
}

export function parseQuery<S extends z.ZodType>(schema: S, query: unknown): z.infer<S> {
  const flat = Object.fromEntries(Object.entries(query as Record<string, unknown>).map(([k, v]) => [k, Array.isArray(v) ? v.at(-1) : v]));
  const result = schema.safeParse(flat);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const name = String(issue.path[0]);
  const hint =
    issue.code === 'invalid_format' ? 'must be an ISO 8601 timestamp with a time zone, such as 2026-11-21T09:30:00Z'
    : issue.code === 'invalid_value' ? `must be one of ${issue.values.map(String).join(', ')}`
    : name === 'limit' ? `must be a whole number from 1 to ${MAX_PAGE}`
    : issue.message;
  throw new ApiError('bad_request', `invalid query parameter "${name}": ${hint}`);
}
