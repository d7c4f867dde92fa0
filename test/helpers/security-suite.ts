// The security checks every token route must pass, written once and run per route: no token, other
// schemes, garbage, a foreign key's signature, unknown and revoked tokens, the wrong scope, and
// another account's device. None of the refused requests may reach the tracker.
import { describe, expect, it } from '@jest/globals';
import type { Express } from 'express';
import request from 'supertest';
import type { Scope } from '../../shared/scopes.js';
import { foreignToken } from './stand-in-tracker.js';

export interface SecuredRoute {
  method: 'get' | 'post';
  /** Builds the path for a device id (ignored by routes without one). */
  path: (deviceId: string) => string;
  scope: Scope;
  /** The route names a device, so another account's id must be a 404. */
  hasDevice: boolean;
}

/** What the suite needs of the backend behind the gateway: the stand-in, or the real tracker. */
export interface SecurityBackend {
  /** Accounts are named by the suite; the backend maps each name to an account of its own. */
  mint(account: string, scopes: Scope[]): Promise<{ token: string; tokenId: string }> | { token: string; tokenId: string };
  /** Signed with the backend's key for a token id it has no record of. */
  mintUnknown(account: string, scopes: Scope[]): string;
  revoke(tokenId: string): unknown;
  addDevice(account: string): Promise<string> | string;
  /** Requests that reached the backend's routes, when it counts them. */
  readonly hits?: number;
  /** Whether answers echo the caller the gateway stated. */
  readonly echoesCaller?: boolean;
}

export interface SuiteContext {
  app: Express;
  tracker: SecurityBackend;
}

const v1 = '/api/public/v1';

/** Every token route of the public API, as the suite calls it; commandId names a command of a device. */
export function tokenRoutes(commandId: (deviceId: string) => string = () => 'cmd_1'): Record<string, SecuredRoute> {
  return {
    'GET /devices': { method: 'get', path: () => `${v1}/devices`, scope: 'read', hasDevice: false },
    'GET /devices/{id}': { method: 'get', path: (id) => `${v1}/devices/${id}`, scope: 'read', hasDevice: true },
    'GET /devices/{id}/positions': { method: 'get', path: (id) => `${v1}/devices/${id}/positions`, scope: 'read', hasDevice: true },
    'GET /devices/{id}/commands/{commandId}': { method: 'get', path: (id) => `${v1}/devices/${id}/commands/${commandId(id)}`, scope: 'read', hasDevice: true },
    'POST /devices/{id}/locate': { method: 'post', path: (id) => `${v1}/devices/${id}/locate`, scope: 'commands', hasDevice: true },
    'GET /alerts': { method: 'get', path: () => `${v1}/alerts?status=open`, scope: 'read', hasDevice: false },
    'GET /incidents': { method: 'get', path: () => `${v1}/incidents`, scope: 'read', hasDevice: false },
    'GET /expenses': { method: 'get', path: () => `${v1}/expenses`, scope: 'read', hasDevice: false },
    'GET /work-orders': { method: 'get', path: () => `${v1}/work-orders`, scope: 'read', hasDevice: false },
    'GET /unit-notes': { method: 'get', path: () => `${v1}/unit-notes`, scope: 'read', hasDevice: false },
  };
}

const OTHER_SCOPE: Record<Scope, Scope[]> = { read: ['commands', 'write'], commands: ['read', 'write'], write: ['read'] };

export function securitySuite(name: string, route: SecuredRoute, context: () => SuiteContext): void {
  describe(`security: ${name}`, () => {
    const call = (auth: string | null, deviceId = 'dev_none') => {
      const { app } = context();
      const req = request(app)[route.method](route.path(deviceId));
      return auth === null ? req : req.set('Authorization', auth);
    };

    /** The response is a refusal the tracker never saw. */
    async function refused(auth: string | null, status: number, deviceId?: string) {
      const { tracker } = context();
      const before = tracker.hits;
      const res = await call(auth, deviceId);
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

    if (route.hasDevice) {
      it("answers 404 for another account's device", async () => {
        const { tracker } = context();
        const theirs = await tracker.addDevice('acc_theirs');
        const { token } = await tracker.mint('acc_mine', [route.scope]);
        const res = await call(`Bearer ${token}`, theirs);
        expect(res.status).toBe(404);
        expect(JSON.stringify(res.body)).not.toContain('acc_theirs');
      });
    }

    it('serves the right token (and tells the tracker who is calling)', async () => {
      const { tracker } = context();
      const account = `acc_ok_${route.scope}`;
      const device = await tracker.addDevice(account);
      const { token, tokenId } = await tracker.mint(account, [route.scope]);
      const res = await call(`Bearer ${token}`, device);
      expect(res.status).toBe(200);
      if (tracker.echoesCaller) expect(res.body.caller).toEqual({ accountId: account, tokenId, scopes: [route.scope] });
    });
  });
}
