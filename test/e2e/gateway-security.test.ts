// The shared security suite through the whole stack: a real gateway in front of the real tracker
// (embedded PGlite), with tokens minted, revoked and devices added by the operator commands, and
// geofences, drivers, rules and alerts made by the tracker's repositories.
import { afterAll, beforeAll } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createGateway, type Gateway } from '../../gateway/app.js';
import { parseConfig } from '../../shared/config.js';
import { newId } from '../../shared/ids.js';
import { ensureEmbeddedKeys } from '../../shared/keys.js';
import { createLogger } from '../../shared/logger.js';
import type { Scope } from '../../shared/scopes.js';
import { publicKeyFrom, signToken } from '../../shared/tokens.js';
import { runVerb } from '../../tracker/admin/verbs.js';
import { insertAlert } from '../../tracker/alerts/repository.js';
import { createRule } from '../../tracker/custom-rules/repository.js';
import { createDriver } from '../../tracker/drivers/repository.js';
import { createGeofence } from '../../tracker/geofences/repository.js';
import { startTracker, type RunningTracker } from '../../tracker/server.js';
import { uniquePrefix } from '../helpers/gateway.js';
import { securitySuite, tokenRoutes, type SecurityBackend } from '../helpers/security-suite.js';
import { NO_DEVICE_PORTS } from '../helpers/ports.js';

let dataDir: string;
let tracker: RunningTracker;
let gateway: Gateway;
const accounts = new Map<string, string>();
const commands = new Map<string, string>();
let imei = 359633100500000;

async function account(name: string): Promise<string> {
  if (!accounts.has(name)) accounts.set(name, ((await runVerb(tracker.ctx, 'accounts create', { name })) as { id: string }).id);
  return accounts.get(name)!;
}

async function mint(name: string, scopes: Scope[]) {
  const created = (await runVerb(tracker.ctx, 'tokens create', { account: await account(name), scopes: scopes.join(',') })) as { id: string; token: string };
  return { token: created.token, tokenId: created.id };
}

const backend: SecurityBackend = {
  mint,
  mintUnknown: (_name, scopes) => signToken({ tokenId: newId('tok'), accountId: 'acc_unknown', scopes }, tracker.ctx.privateKey),
  revoke: (tokenId) => runVerb(tracker.ctx, 'tokens revoke', { token: tokenId }),
  async addDevice(name) {
    const accountId = await account(name);
    const device = ((await runVerb(tracker.ctx, 'devices add', { account: accountId, imei: String(++imei), name: 'Van' })) as { id: string }).id;
    // A queued command of its own, so the command-status route has something to find.
    const { token } = await mint(name, ['commands']);
    const located = await request(gateway.app).post(`/api/public/v1/devices/${device}/locate`).set('Authorization', `Bearer ${token}`);
    commands.set(device, (located.body as { commandId: string }).commandId);
    return device;
  },
  async addOwned(name, kind) {
    const accountId = await account(name);
    const db = tracker.ctx.db;
    switch (kind) {
      case 'device':
        return backend.addDevice(name);
      case 'geofence':
        return (await createGeofence(db, accountId, { name: 'Depot', description: '', shape: { type: 'circle', center: { lat: 52.52, lng: 13.405 }, radius: 150 } })).id;
      case 'driver':
        return (await createDriver(db, accountId, { name: 'Ann', phone: '', licenseNumber: '', uniqueId: null })).id;
      case 'rule':
        return (await createRule(db, accountId, { name: 'Fast', enabled: true, severity: 'info', condition: { '>': [{ var: 'speed' }, 100] }, geofenceId: null, timeWindow: null, deviceIds: null })).id;
      case 'alert': {
        const deviceId = ((await runVerb(tracker.ctx, 'devices add', { account: accountId, imei: String(++imei), name: 'Van' })) as { id: string }).id;
        return String((await insertAlert(db, { accountId, deviceId, type: 'sos', severity: 'critical', message: 'SOS' })).id);
      }
    }
  },
};

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'gateway-e2e-'));
  const ports = { TRACKER_HTTP_PORT: '0', ...NO_DEVICE_PORTS };
  tracker = await startTracker(parseConfig({ DATA_DIR: dataDir, DEMO: 'false', ...ports }), createLogger('tracker', 'silent'));
  const keys = ensureEmbeddedKeys(dataDir);
  const config = parseConfig({
    TRACKER_URL: `http://127.0.0.1:${tracker.httpPort}`,
    DATA_DIR: dataDir,
    RATE_LIMIT_READ_PER_MINUTE: '100000',
    RATE_LIMIT_WRITE_PER_MINUTE: '100000',
    RATE_LIMIT_COMMANDS_PER_MINUTE: '100000',
    RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000',
    RATE_LIMIT_PREFIX: uniquePrefix(),
  });
  gateway = createGateway({ config, logger: createLogger('gateway', 'silent'), publicKey: publicKeyFrom(keys.publicKeyPem), gatewaySecret: keys.gatewaySecret });
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await tracker?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

for (const [name, route] of Object.entries(tokenRoutes((device) => commands.get(device) ?? 'cmd_none'))) {
  securitySuite(`${name} (real tracker)`, route, () => ({ app: gateway.app, tracker: backend }));
}
