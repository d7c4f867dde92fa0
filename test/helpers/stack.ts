// The production topology as real processes: a fresh PostgreSQL database with its keys, the
// settings a tracker and a gateway process need, and the operator commands to fill it.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { parseConfig } from '../../shared/config.js';
import type { AdminContext } from '../../tracker/admin/admin-context.js';
import { runVerb } from '../../tracker/admin/verbs.js';
import { migrate } from '../../tracker/storage/migrate.js';
import { openDb } from '../../tracker/storage/open.js';
import { createTestDatabase, type TestDatabase } from './databases.js';
import { uniquePrefix } from './gateway.js';
import { startService, type Service, type StartOptions } from './processes.js';
import { NO_DEVICE_PORTS } from './ports.js';

export interface Stack {
  database: TestDatabase;
  admin: AdminContext;
  /** Settings of a tracker process on this database; every port picked free. */
  trackerEnv: Record<string, string>;
  /** Settings of a gateway process in front of the tracker on that port. */
  gatewayEnv(trackerPort: number): Record<string, string>;
  startTracker(env?: Record<string, string>, opts?: StartOptions): Promise<Service & { devicePorts: Record<string, number>; metricsPort: number }>;
  account(name: string): Promise<string>;
  device(account: string, imei: string): Promise<string>;
  token(account: string, scopes: string): Promise<string>;
  close(): Promise<void>;
}

export async function createStack(): Promise<Stack> {
  const database = await createTestDatabase('postgres');
  const db = await openDb({ databaseUrl: database.url, dataDir: database.dataDir });
  await migrate(db);
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const gatewaySecret = randomBytes(32).toString('base64url');
  const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const admin: AdminContext = { db, privateKey, config: parseConfig({}) };
  const trackerEnv = {
    DATABASE_URL: database.url!,
    DATA_DIR: database.dataDir,
    DEMO: 'false',
    TRACKER_HTTP_PORT: '0',
    ...NO_DEVICE_PORTS,
    GATEWAY_SECRET: gatewaySecret,
    JWT_PRIVATE_KEY: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    JWT_PUBLIC_KEY: publicPem,
  };
  const run = async (command: Parameters<typeof runVerb>[1], input: Record<string, string>) =>
    (await runVerb(admin, command, input)) as { id: string; token?: string };
  return {
    database,
    admin,
    trackerEnv,
    gatewayEnv: (trackerPort) => ({
      GATEWAY_PORT: '0',
      GATEWAY_HOST: '127.0.0.1',
      TRACKER_URL: `http://127.0.0.1:${trackerPort}`,
      JWT_PUBLIC_KEY: publicPem,
      GATEWAY_SECRET: gatewaySecret,
      REDIS_URL: 'redis://127.0.0.1:6379',
      RATE_LIMIT_PREFIX: uniquePrefix(),
    }),
    async startTracker(env = {}, opts = {}) {
      // Started under tsx: on a loaded machine compiling and migrating can take a while.
      const timeoutMs = opts.timeoutMs ?? 60_000;
      const s = await startService('tracker/main.ts', { ...trackerEnv, ...env }, { ...opts, timeoutMs });
      const line = await s.waitForLog((l) => l.msg === 'tracker started', timeoutMs);
      return Object.assign(s, { devicePorts: line.devicePorts as Record<string, number>, metricsPort: line.metricsPort as number });
    },
    account: async (name) => (await run('accounts create', { name })).id,
    device: async (account, imei) => (await run('devices add', { account, imei, name: imei })).id,
    token: async (account, scopes) => (await run('tokens create', { account, scopes })).token!,
    async close() {
      await db.close();
      await database.drop();
    },
  };
}
