// An in-process tracker on a fresh database, and supertest calls signed as the gateway would sign them.
import request from 'supertest';
import { parseConfig } from '../../shared/config.js';
import { INTERNAL_HEADERS } from '../../shared/internal.js';
import { createLogger } from '../../shared/logger.js';
import { runVerb } from '../../tracker/admin/verbs.js';
import { startTracker, type RunningTracker } from '../../tracker/server.js';
import { createTestDatabase, type Engine, type TestDatabase } from './databases.js';
import { NO_DEVICE_PORTS } from './ports.js';

/** Position filters and counters for a batcher a test makes beside the tracker's (another tracker's, say). */
export const SEQUENCE = { filters: { zero: 'flag', future: 'flag', futureMarginMs: 86_400_000, jump: 'flag', maxSpeedKmh: 1000 }, engineHoursMaxGapMs: 600_000 } as const;

export interface TrackerFixture {
  tracker: RunningTracker;
  db: TestDatabase;
  close(): Promise<void>;
  /** A request as the gateway forwards it, for the given account and scopes. */
  as(accountId: string, scopes?: string): Record<'get' | 'post' | 'put' | 'patch' | 'delete', (path: string) => request.Test>;
  account(name: string): Promise<string>;
  device(accountId: string, imei: string, name?: string): Promise<string>;
}

export async function startTrackerFixture(engine: Engine = 'postgres', settings: Record<string, string> = {}): Promise<TrackerFixture> {
  const db = await createTestDatabase(engine);
  const config = parseConfig({ DATABASE_URL: db.url, DATA_DIR: db.dataDir, TRACKER_HTTP_PORT: '0', ...NO_DEVICE_PORTS, DEMO: 'false', ...settings });
  const tracker = await startTracker(config, createLogger('tracker', 'silent'));
  const base = `http://127.0.0.1:${tracker.httpPort}`;
  const sign = (t: request.Test, accountId: string, scopes: string) =>
    t.set(INTERNAL_HEADERS.secret, tracker.ctx.gatewaySecret).set(INTERNAL_HEADERS.accountId, accountId).set(INTERNAL_HEADERS.tokenId, 'tok_test').set(INTERNAL_HEADERS.scopes, scopes);
  return {
    tracker,
    db,
    async close() {
      await tracker.close();
      await db.drop();
    },
    as: (accountId, scopes = 'read write commands') => ({
      get: (path) => sign(request(base).get(path), accountId, scopes),
      post: (path) => sign(request(base).post(path), accountId, scopes),
      put: (path) => sign(request(base).put(path), accountId, scopes),
      patch: (path) => sign(request(base).patch(path), accountId, scopes),
      delete: (path) => sign(request(base).delete(path), accountId, scopes),
    }),
    account: async (name) => ((await runVerb(tracker.ctx, 'accounts create', { name })) as { id: string }).id,
    device: async (accountId, imei, name = 'Unit') => ((await runVerb(tracker.ctx, 'devices add', { account: accountId, imei, name })) as { id: string }).id,
  };
}
