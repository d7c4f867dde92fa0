// The security checks every token route of the route catalogue must pass, written once and run per
// route: no token, other schemes, garbage, a foreign key's signature, unknown and revoked tokens, the
// wrong scope, and another account's device. None of the refused requests may reach the tracker.
import { describe, expect, it } from '@jest/globals';
import type { Express } from 'express';
import request from 'supertest';
import { OPERATIONS } from '../../shared/catalogue.js';
import type { Scope } from '../../shared/scopes.js';
import { foreignToken } from './stand-in-tracker.js';

/** What a route's path id names. */
export type Owned = 'device' | 'geofence' | 'driver' | 'rule' | 'alert';

export interface SecuredRoute {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Builds the path for the id of what it names (ignored by routes without one). */
  path: (id: string) => string;
  scope: Scope;
  /** What the path names, so another account's id must be a 404; absent for routes without one. */
  owned?: Owned;
  /** A valid JSON body, for routes that take one. */
  body?: object;
  /** The success status (200 by default). */
  status?: number;
  /** A Server-Sent Events stream: its answer is read up to its first bytes, then dropped. */
  stream?: boolean;
}

/** Reads a body whole, or an event stream up to its first bytes (it never ends by itself). */
function headOfStream(res: NodeJS.ReadableStream & { headers: Record<string, string | undefined>; destroy(): void }, done: (err: Error | null, body: unknown) => void): void {
  let text = '';
  const streaming = (res.headers['content-type'] ?? '').startsWith('text/event-stream');
  res.on('data', (chunk: Buffer) => {
    text += chunk.toString();
    if (!streaming) return;
    res.destroy();
    done(null, { text });
  });
  res.on('end', () => {
    if (streaming) return;
    try {
      done(null, text ? JSON.parse(text) : {});
    } catch {
      done(null, { text });
    }
  });
}

/** What the suite needs of the backend behind the gateway: the stand-in, or the real tracker. */
export interface SecurityBackend {
  /** Accounts are named by the suite; the backend maps each name to an account of its own. */
  mint(account: string, scopes: Scope[]): Promise<{ token: string; tokenId: string }> | { token: string; tokenId: string };
  /** Signed with the backend's key for a token id it has no record of. */
  mintUnknown(account: string, scopes: Scope[]): string;
  revoke(tokenId: string): unknown;
  addDevice(account: string): Promise<string> | string;
  /** Something of the account's own that a route names (a device, geofence, driver, rule, alert). */
  addOwned(account: string, kind: Owned): Promise<string> | string;
  /** Requests that reached the backend's routes, when it counts them. */
  readonly hits?: number;
  /** Whether answers echo the caller the gateway stated. */
  readonly echoesCaller?: boolean;
}

export interface SuiteContext {
  app: Express;
  tracker: SecurityBackend;
}

/** A valid body for each request schema the catalogue names, for the operations that require one. */
const BODIES: Record<string, object> = {
  DeviceInput: { name: 'Van', imei: '359633199900001' },
  DevicePatch: { name: 'Van 2' },
  DevicesBulkInput: { devices: [{ name: 'Van', imei: '359633199900002' }] },
  GeofenceInput: { name: 'Depot', shape: { type: 'circle', center: { lat: 52.52, lng: 13.405 }, radius: 150 } },
  DriverInput: { name: 'Ann Driver' },
  RuleInput: { name: 'Fast', severity: 'warning', condition: { '>': [{ var: 'speed' }, 100] } },
  DriverAssignmentInput: { driverId: null },
  DeviceSettingsPatch: { speedLimitKmh: 80 },
  AccountSettingsPatch: { speedLimitKmh: 100 },
  CommandBody: { type: 'reboot' },
};

/** What a path's `{id}` names, by the segment before it. */
const OWNED: Record<string, Owned> = { devices: 'device', geofences: 'geofence', drivers: 'driver', rules: 'rule', alerts: 'alert' };

const V1 = '/api/public/v1';

/** Every token route of the route catalogue, as the suite calls it; commandId names a command of a device. */
export function tokenRoutes(commandId: (deviceId: string) => string = () => 'cmd_1'): Record<string, SecuredRoute> {
  const routes: Record<string, SecuredRoute> = {};
  for (const op of OPERATIONS) {
    if (!op.scope) continue;
    const segments = op.path.split('/');
    const owner = segments[segments.indexOf('{id}') - 1];
    const body = op.body?.required ? BODIES[op.body.schema] : undefined;
    if (op.body?.required && !body) throw new Error(`security suite: no example body for ${op.body.schema}`);
    routes[`${op.method} ${op.path.replace(V1, '')}`] = {
      method: op.method.toLowerCase() as SecuredRoute['method'],
      path: (id) => op.path.replace('{id}', id).replace('{commandId}', commandId(id)),
      scope: op.scope,
      ...(owner ? { owned: OWNED[owner] } : {}),
      ...(body ? { body } : {}),
      status: op.response.status,
      ...(op.response.events ? { stream: true } : {}),
    };
  }
  return routes;
}

const OTHER_SCOPE: Record<Scope, Scope[]> = { read: ['commands', 'write'], commands: ['read', 'write'], write: ['read'] };

export function securitySuite(name: string, route: SecuredRoute, context: () => SuiteContext): void {
  describe(`security: ${name}`, () => {
    const call = (auth: string | null, id = 'none') => {
      const { app } = context();
      const req = request(app)[route.method](route.path(id));
      const authed = auth === null ? req : req.set('Authorization', auth);
      if (route.stream) authed.buffer(true).parse(headOfStream as never);
      return route.body ? authed.send(route.body) : authed;
    };

    /** The response is a refusal the tracker never saw. */
    async function refused(auth: string | null, status: number) {
      const { tracker } = context();
      const before = tracker.hits;
      const res = await call(auth);
      expect(res.status).toBe(status);
      expect(typeof res.body.error).toBe('string');
      if (before !== undefined) expect(tracker.hits).toBe(before);
      return res;
    }

    it('refuses a request without a token: 401 with a Bearer challenge', async () => {
      const res = await refused(null, 401);
      expect(res.headers['www-authenticate']).toBe('Bearer');
    });

    it('refuses another scheme', async () => {
      const res = await refused('Basic dXNlcjpwYXNz', 401);
      expect(res.headers['www-authenticate']).toBe('Bearer');
    });

    it('refuses garbage and malformed tokens', async () => {
      await refused('Bearer garbage', 401);
      await refused('Bearer aaa.bbb.ccc', 401);
      await refused('Bearer ', 401);
    });

    it("refuses a token signed with another key", async () => {
      await refused(`Bearer ${foreignToken('acc_x', [route.scope])}`, 401);
    });

    it('refuses a well-signed token the tracker does not know', async () => {
      const { tracker } = context();
      const res = await refused(`Bearer ${tracker.mintUnknown('acc_x', [route.scope])}`, 401);
      expect(res.headers['www-authenticate']).toBe('Bearer');
    });

    it('refuses a revoked token', async () => {
      const { tracker } = context();
      const { token, tokenId } = await tracker.mint('acc_rev', [route.scope]);
      await tracker.revoke(tokenId);
      await refused(`Bearer ${token}`, 401);
    });

    it(`refuses a token without the "${route.scope}" scope: 403 naming it`, async () => {
      const { tracker } = context();
      const { token } = await tracker.mint('acc_scope', OTHER_SCOPE[route.scope]);
      const res = await refused(`Bearer ${token}`, 403);
      expect(res.headers['www-authenticate']).toBe(`Bearer error="insufficient_scope", scope="${route.scope}"`);
      expect(res.body.error).toContain(route.scope);
    });

    const owned = route.owned;
    if (owned) {
      it(`answers 404 for another account's ${owned}`, async () => {
        const { tracker } = context();
        const theirs = await tracker.addOwned('acc_theirs', owned);
        const { token } = await tracker.mint('acc_mine', [route.scope]);
        const res = await call(`Bearer ${token}`, theirs);
        expect(res.status).toBe(404);
        expect(JSON.stringify(res.body)).not.toContain('acc_theirs');
      });
    }

    it('serves the right token (and tells the tracker who is calling)', async () => {
      const { tracker } = context();
      const account = `acc_ok_${route.scope}`;
      const id = owned ? await tracker.addOwned(account, owned) : 'none';
      const { token, tokenId } = await tracker.mint(account, [route.scope]);
      const res = await call(`Bearer ${token}`, id);
      expect(res.status).toBe(route.status ?? 200);
      if (tracker.echoesCaller && res.status !== 204) expect(res.body.caller).toEqual({ accountId: account, tokenId, scopes: [route.scope] });
    });
  });
}
