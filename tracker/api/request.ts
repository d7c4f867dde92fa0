// Request helpers for the public routes: the caller's scope and account, and query and body
// validation whose 400s name the parameter or field.
import { json, type RequestHandler, type Response } from 'express';
import type { z } from 'zod';
import { ApiError } from '../../shared/errors.js';
import type { Scope } from '../../shared/scopes.js';
import { callerOf, type Caller } from '../http/gateway-auth.js';
import { MAX_PAGE } from '../storage/paging.js';

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

/** Geofence polygons are the largest bodies: 1000 points are about 50 KB of JSON. */
const MAX_BODY = '256kb';
const parseJson = json({ limit: MAX_BODY });

/** A JSON body is required (415 for another Content-Type), parsed within the size limit. */
export function jsonBody(): RequestHandler {
  return function jsonBody(req, res, next) {
    if (!req.is(['application/json', '+json'])) return next(new ApiError('unsupported_media_type', 'Content-Type must be application/json, with a JSON object as the body'));
    parseJson(req, res, next);
  };
}

export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ApiError('bad_request', 'the body must be a JSON object');
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = issue.path.map(String).join('.');
  const message =
    issue.code === 'unrecognized_keys' ? `unknown field ${issue.keys.map((k) => `"${k}"`).join(', ')}`
    : issue.code === 'invalid_type' && issue.message.endsWith('received undefined') ? 'is required'
    : issue.code === 'invalid_value' ? `must be one of ${issue.values.map(String).join(', ')}`
    : issue.message;
  throw new ApiError('bad_request', field ? `invalid body field "${field}": ${message}` : `invalid body: ${message}`);
}
