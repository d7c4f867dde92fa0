// Matches each request against the route table before anything else runs: an unknown path is a
// 404, a known path with another method a 405 with Allow, and a match is kept in res.locals.
import type { RequestHandler, Response } from 'express';
import { ApiError } from '../shared/errors.js';
import type { Lookup, RouteMatch } from './routes.js';

interface DispatchLocals {
  match?: RouteMatch;
}

const NOT_FOUND = new ApiError('not_found', 'no such endpoint');

export function dispatch(lookup: (method: string, path: string) => Lookup): RequestHandler {
  if (typeof lookup !== 'function') throw new Error('dispatch: lookup is required');
  return function dispatch(req, res, next) {
    const found = lookup(req.method, req.path);
    if (found.kind === 'match') {
      (res.locals as DispatchLocals).match = found.match;
      return next();
    }
    if (found.kind === 'none') return next(NOT_FOUND);
    const allow = found.allow.join(', ');
    next(new ApiError('method_not_allowed', `use ${allow} on this endpoint`, { Allow: allow }));
  };
}

/** The route this request matched; dispatch runs first, so later middleware can rely on it. */
export function matchOf(res: Response): RouteMatch {
  const match = (res.locals as DispatchLocals).match;
  if (!match) throw new Error('matchOf: dispatch did not run');
  return match;
}
