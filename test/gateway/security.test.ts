// The shared security suite, run for every token route of the route table.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ROUTES } from '../../gateway/routes.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { securitySuite, tokenRoutes } from '../helpers/security-suite.js';
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
const SECURED = tokenRoutes();

describe('route coverage', () => {
  it('runs the suite for every token route in the table', () => {
    const inTable = ROUTES.filter((r) => r.scope).map((r) => `${r.method} ${r.path.replace(v1, '')}`);
    expect(Object.keys(SECURED).sort()).toEqual(inTable.sort());
    for (const r of ROUTES.filter((x) => x.scope)) expect(SECURED[`${r.method} ${r.path.replace(v1, '')}`]!.scope).toBe(r.scope);
  });
});

for (const [name, route] of Object.entries(SECURED)) {
  securitySuite(name, route, () => ({ app: gateway.app, tracker }));
}
