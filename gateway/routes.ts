// The gateway's route table: the public API's operations from the shared catalogue, and beside
// them the routes that are not API operations (the API's own documentation and the account
// dashboard). Every request is matched against it first: an unknown path is a 404, a known path with
// another method a 405.
import type { RequestHandler, Response } from 'express';
import { OPERATIONS, type Method, type Operation } from '../shared/catalogue.js';
import { ApiError } from '../shared/errors.js';
import type { Scope } from '../shared/scopes.js';

/**
 * Where a request is counted. `read`/`write`/`commands` count per token; `docs` and `dashboard` per
 * client address; `inbound` per webhook id (the `key` parameter of the route), after a per-address
 * count of refused inbound calls.
 */
export type Bucket = Operation['bucket'] | 'docs' | 'dashboard';

export interface RouteSpec {
  method: Method;
  /** Literal segments and `{name}` parameters, e.g. /api/public/v1/devices/{id}. */
  path: string;
  /** The scope a bearer token must hold; absent for routes that take no bearer token. */
  scope?: Scope;
  bucket: Bucket;
  /** For per-key buckets (inbound): the path parameter that names the counter. */
  key?: string;
  /** A smaller body cap than the gateway's 1 MiB default. */
  maxBodyBytes?: number;
  /** An endless Server-Sent Events answer (the live feed). */
  stream?: true;
}

/** The account dashboard: HTML pages that carry a session cookie, never a bearer token. */
const dashboard = (method: Method, path: string): RouteSpec => ({ method, path: `/dashboard${path}`, bucket: 'dashboard' });

export const ROUTES: readonly RouteSpec[] = [
  ...OPERATIONS,
  { method: 'GET', path: '/api-docs', bucket: 'docs' },
  { method: 'GET', path: '/api-docs/openapi.json', bucket: 'docs' },
  { method: 'GET', path: '/api-docs/init.js', bucket: 'docs' },
  { method: 'GET', path: '/api-docs/assets/{file}', bucket: 'docs' },
  dashboard('GET', ''),
  dashboard('GET', '/assets/{file}'),
  dashboard('GET', '/login'),
  dashboard('POST', '/login'),
  dashboard('POST', '/logout'),
  dashboard('GET', '/set-password'),
  dashboard('POST', '/set-password'),
  dashboard('GET', '/fleet.json'),
  { ...dashboard('GET', '/stream'), stream: true },
  dashboard('GET', '/devices'),
  dashboard('POST', '/devices'),
  dashboard('GET', '/devices/{id}'),
  dashboard('POST', '/devices/{id}'),
  dashboard('GET', '/devices/{id}/track'),
  dashboard('GET', '/devices/{id}/track.json'),
  dashboard('GET', '/devices/{id}/positions.json'),
  dashboard('POST', '/devices/{id}/report-key'),
  dashboard('POST', '/devices/{id}/commands'),
  dashboard('GET', '/alerts'),
  dashboard('POST', '/alerts/{id}/acknowledge'),
  dashboard('GET', '/geofences'),
  dashboard('POST', '/geofences'),
  dashboard('GET', '/geofences/{id}'),
  dashboard('POST', '/geofences/{id}'),
  dashboard('POST', '/geofences/{id}/delete'),
  dashboard('GET', '/drivers'),
  dashboard('POST', '/drivers'),
  dashboard('GET', '/drivers/{id}'),
  dashboard('POST', '/drivers/{id}'),
  dashboard('POST', '/drivers/{id}/delete'),
  dashboard('GET', '/records'),
  dashboard('GET', '/records/{kind}'),
  dashboard('GET', '/webhooks'),
  dashboard('POST', '/webhooks'),
  dashboard('GET', '/webhooks/{id}'),
  dashboard('POST', '/webhooks/{id}/test'),
  dashboard('POST', '/webhooks/{id}/enable'),
  dashboard('POST', '/webhooks/{id}/retry'),
  dashboard('POST', '/webhooks/{id}/remove'),
  dashboard('GET', '/inbound'),
  dashboard('POST', '/inbound'),
  dashboard('GET', '/inbound/{id}'),
  dashboard('POST', '/inbound/{id}/remove'),
  dashboard('GET', '/tokens'),
  dashboard('POST', '/tokens'),
  dashboard('POST', '/tokens/{id}/revoke'),
];

export interface RouteMatch {
  route: RouteSpec;
  params: Record<string, string>;
}

export type Lookup = { kind: 'match'; match: RouteMatch } | { kind: 'wrong_method'; allow: string[] } | { kind: 'none' };

// A parameter is one plain segment: ids here are short ASCII, so anything else (dot segments,
// encoded slashes or backslashes) is refused at the door rather than handed to the backend.
const PARAM = '([A-Za-z0-9_~-][A-Za-z0-9._~-]{0,127})';

interface Compiled {
  route: RouteSpec;
  regex: RegExp;
  names: string[];
}

function compile(route: RouteSpec): Compiled {
  if (!route.path.startsWith('/')) throw new Error(`route path must start with /: ${route.path}`);
  if (route.key && !route.path.includes(`{${route.key}}`)) throw new Error(`route ${route.path}: key ${route.key} is not a parameter`);
  if (route.maxBodyBytes !== undefined && !(Number.isInteger(route.maxBodyBytes) && route.maxBodyBytes > 0)) throw new Error(`route ${route.path}: maxBodyBytes must be a positive whole number`);
  const names: string[] = [];
  const source = route.path
    .split('/')
    .map((segment) => {
      const param = /^\{([A-Za-z]+)\}$/.exec(segment);
      if (!param) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(param[1]!);
      return PARAM;
    })
    .join('/');
  return { route, regex: new RegExp(`^${source}$`), names };
}

/** Compiles a table once; the returned lookup maps a method and a path (no query) to a route. */
export function routeTable(routes: readonly RouteSpec[] = ROUTES): (method: string, path: string) => Lookup {
  const compiled = routes.map(compile);
  const seen = new Set<string>();
  for (const r of routes) {
    const id = `${r.method} ${r.path}`;
    if (seen.has(id)) throw new Error(`duplicate route ${id}`);
    seen.add(id);
  }
  return function lookup(method, path) {
    let allow: string[] | null = null;
    for (const c of compiled) {
      const m = c.regex.exec(path);
      if (!m) continue;
      if (c.route.method === method) {
        const params: Record<string, string> = {};
        c.names.forEach((name, i) => (params[name] = m[i + 1]!));
        return { kind: 'match', match: { route: c.route, params } };
      }
      (allow ??= []).push(c.route.method);
    }
    return allow ? { kind: 'wrong_method', allow } : { kind: 'none' };
  };
}

interface DispatchLocals {
  match?: RouteMatch;
}

const NOT_FOUND = new ApiError('not_found', 'no such endpoint');

/** Matches the request to a route before anything else runs; the match is kept in res.locals. */
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

/** The route template a request matched, for metrics labels; `unmatched` for 404s and 405s. */
export function routeLabel(res: Response): string {
  return (res.locals as DispatchLocals).match?.route.path ?? 'unmatched';
}
