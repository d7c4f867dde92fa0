// The tracker's probes: /healthz (alive) and /readyz (the database answers), both answered without
// the gateway's secret, while every other path still refuses callers without it.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import pg from 'pg';
import request from 'supertest';
import { ADMIN_URL } from '../helpers/databases.js';
import { sample } from '../helpers/metrics.js';
import { startTrackerFixture, type TrackerFixture } from '../helpers/tracker-app.js';

let f: TrackerFixture;
let base: string;
let dbName: string;

async function admin(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: ADMIN_URL });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

beforeAll(async () => {
  f = await startTrackerFixture('postgres');
  base = `http://127.0.0.1:${f.tracker.httpPort}`;
  dbName = new URL(f.db.url!).pathname.slice(1);
});
afterAll(async () => {
  await admin(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS true`);
  await f.close();
});

describe('tracker probes', () => {
  test('answer without the gateway secret; other paths still refuse', async () => {
    expect((await request(base).get('/healthz')).body).toEqual({ status: 'ok' });
    const ready = await request(base).get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready', checks: { database: 'ok' } });
    expect((await request(base).get('/api/public/v1/devices')).status).toBe(401);
  });

  test('/readyz is 503 (and fleet_database_up 0) while the database refuses connections, ready again once it accepts them', async () => {
    const databaseUp = async () => sample(await f.tracker.ctx.metrics.registry.metrics(), 'fleet_database_up');
    expect(await databaseUp()).toBe(1);
    await admin(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS false`);
    await admin(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${dbName}'`);
    expect(await databaseUp()).toBe(0);
    const down = await request(base).get('/readyz');
    expect(down.status).toBe(503);
    expect(down.body).toEqual({ error: 'not ready', code: 'unavailable', checks: { database: 'down' } });
    expect((await request(base).get('/healthz')).status).toBe(200);

    await admin(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS true`);
    expect((await request(base).get('/readyz')).status).toBe(200);
    expect(await databaseUp()).toBe(1);
  });
});
