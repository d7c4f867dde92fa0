// The route table and its settings: matching, parameters, 405 data, setup-time checks.
import { describe, expect, it } from '@jest/globals';
import { ROUTES, routeTable, type RouteSpec } from '../../gateway/routes.js';
import { ConfigError, parseConfig } from '../../shared/config.js';

const lookup = routeTable();

describe('route table', () => {
  it('matches each route with its parameters', () => {
    expect(lookup('GET', '/api/public/v1/devices')).toMatchObject({ kind: 'match', match: { route: { scope: 'read', bucket: 'read' }, params: {} } });
    expect(lookup('GET', '/api/public/v1/devices/dev_abc/commands/cmd_1')).toMatchObject({
      kind: 'match',
      match: { params: { id: 'dev_abc', commandId: 'cmd_1' } },
    });
    expect(lookup('POST', '/api/public/v1/devices/dev_abc/locate')).toMatchObject({ kind: 'match', match: { route: { scope: 'commands', bucket: 'commands' } } });
    expect(lookup('POST', '/api/inbound/inb_1')).toMatchObject({ kind: 'match', match: { route: { bucket: 'inbound', key: 'webhookId' }, params: { webhookId: 'inb_1' } } });
    const docs = lookup('GET', '/api-docs');
    expect(docs.kind === 'match' && docs.match.route.scope).toBeUndefined();
  });

  it('serves the dashboard without a bearer token, counted in its own bucket', () => {
    const dashboard = ROUTES.filter((r) => r.path === '/dashboard' || r.path.startsWith('/dashboard/'));
    expect(dashboard.length).toBeGreaterThan(10);
    for (const r of dashboard) expect(r).toMatchObject({ bucket: 'dashboard' });
    for (const r of dashboard) expect(r.scope).toBeUndefined();
    expect(lookup('POST', '/dashboard/tokens/tok_abc/revoke')).toMatchObject({ kind: 'match', match: { params: { id: 'tok_abc' } } });
    expect(lookup('GET', '/dashboard/devices/../../api')).toEqual({ kind: 'none' });
  });

  it('lists the allowed methods for a known path', () => {
    expect(lookup('PUT', '/api/public/v1/alerts')).toEqual({ kind: 'wrong_method', allow: ['GET'] });
    expect(lookup('GET', '/api/inbound/inb_1')).toEqual({ kind: 'wrong_method', allow: ['POST'] });
  });

  it('does not match unknown paths, odd parameters or dot segments', () => {
    for (const path of ['/api/public/v1/device', '/api/public/v1/devices/', '/api/public/v1/devices/a/b', '/api/public/v1/devices/..', '/api/public/v1/devices/.x', '/api/public/v1/devices/a%2Fb', '/API/public/v1/devices']) {
      expect(lookup('GET', path)).toEqual({ kind: 'none' });
    }
  });

  it('gives every token route a scope from the spec', () => {
    const scopes = Object.fromEntries(ROUTES.filter((r) => r.scope).map((r) => [`${r.method} ${r.path}`, r.scope]));
    expect(scopes['GET /api/public/v1/devices']).toBe('read');
    expect(scopes['GET /api/public/v1/devices/{id}/positions']).toBe('read');
    expect(scopes['GET /api/public/v1/alerts']).toBe('read');
    expect(scopes['POST /api/public/v1/devices/{id}/locate']).toBe('commands');
  });

  it('refuses a bad table when it is built', () => {
    const dup: RouteSpec[] = [ROUTES[0]!, ROUTES[0]!];
    expect(() => routeTable(dup)).toThrow(/duplicate/);
    expect(() => routeTable([{ method: 'POST', path: '/hooks/{id}', bucket: 'inbound', key: 'other' }])).toThrow(/key/);
    expect(() => routeTable([{ method: 'GET', path: 'relative', bucket: 'read' }])).toThrow(/start with/);
    expect(() => routeTable([{ method: 'POST', path: '/hooks/{id}', bucket: 'inbound', key: 'id', maxBodyBytes: 0 }])).toThrow(/maxBodyBytes/);
  });
});

describe('gateway settings', () => {
  it('default to the decided limits', () => {
    const c = parseConfig({});
    expect([c.RATE_LIMIT_READ_PER_MINUTE, c.RATE_LIMIT_COMMANDS_PER_MINUTE, c.TOKEN_CACHE_MS, c.RATE_LIMIT_ON_STORE_ERROR, c.TRUST_PROXY_HOPS]).toEqual([60, 10, 500, 'open', 0]);
  });

  it('refuse a token cache longer than the one-second revocation promise', () => {
    expect(() => parseConfig({ TOKEN_CACHE_MS: '5000' })).toThrow(ConfigError);
    expect(() => parseConfig({ RATE_LIMIT_READ_PER_MINUTE: '0' })).toThrow(/RATE_LIMIT_READ_PER_MINUTE/);
    expect(() => parseConfig({ RATE_LIMIT_PREFIX: 'has space' })).toThrow(/RATE_LIMIT_PREFIX/);
  });
});
