// The shared security suite, run for every token route of the route table.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ROUTES } from '../../gateway/routes.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { securitySuite, type SecuredRoute } from '../helpers/security-suite.js';
import { startStandInTracker, type StandInTracker } from '../helpers/stand-in-tracker.js';

let tracker: StandInTracker;
let gateway: TestGateway;

beforeAll(async () => {
  tracker = await startStandInTracker();
  gateway = startTestGateway(tracker);
});
afterAll(async () => {
  await gateway.close();
  await tracker.close();
});

const v1 = '/api/public/v1';
const SECURED: Record<string, SecuredRoute> = {
  'GET /devices': { method: 'get', path: () => `${v1}/devices`, scope: 'read', hasDevice: false },
  'GET /devices/{id}': { method: 'get', path: (id) => `${v1}/devices/${id}`, scope: 'read', hasDevice: true },
  'GET /devices/{id}/positions': { method: 'get', path: (id) => `${v1}/devices/${id}/positions?from=2026-01-01T00:00:00Z`, scope: 'read', hasDevice: true },
  'GET /devices/{id}/commands/{commandId}': { method: 'get', path: (id) => `${v1}/devices/${id}/commands/cmd_1`, scope: 'read', hasDevice: true },
  'POST /devices/{id}/locate': { method: 'post', path: (id) => `${v1}/devices/${id}/locate`, scope: 'commands', hasDevice: true },
  'GET /alerts': { method: 'get', path: () => `${v1}/alerts?status=open`, scope: 'read', hasDevice: false },
};

describe('route coverage', () => {
  it('runs the suite for every token route in the table', () => {
    const tokenRoutes = ROUTES.filter((r) => r.scope).map((r) => `${r.method} ${r.path.replace(v1, '')}`);
    expect(Object.keys(SECURED).sort()).toEqual(tokenRoutes.sort());
    for (const r of ROUTES.filter((x) => x.scope)) expect(SECURED[`${r.method} ${r.path.replace(v1, '')}`]!.scope).toBe(r.scope);
  });
});

for (const [name, route] of Object.entries(SECURED)) {
  securitySuite(name, route, () => ({ app: gateway.app, tracker }));
}
