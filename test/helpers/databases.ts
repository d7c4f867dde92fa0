// Test databases: a fresh PostgreSQL database per call on the machine's server (dropped afterwards),
// or a fresh PGlite data directory. Both with the product's migrations applied.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Db } from '../../tracker/storage/db.js';
import { openDb } from '../../tracker/storage/open.js';
import { migrate } from '../../tracker/storage/migrate.js';

export const ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
export type Engine = 'postgres' | 'pglite';
export const ENGINES: Engine[] = ['postgres', 'pglite'];

export interface TestDatabase {
  /** DATABASE_URL for postgres; undefined for PGlite (then dataDir holds the data). */
  url: string | undefined;
  dataDir: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(engine: Engine): Promise<TestDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), 'fleet-test-'));
  if (engine === 'pglite') return { url: undefined, dataDir, drop: async () => rmSync(dataDir, { recursive: true, force: true }) };
  const name = `fleet_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  return {
    url: `postgres://postgres@127.0.0.1:5432/${name}`,
    dataDir,
    async drop() {
      const c = new pg.Client({ connectionString: ADMIN_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Opens a migrated database of the given engine; close() also drops it. */
export async function openTestDb(engine: Engine): Promise<{ db: Db; close(): Promise<void> }> {
  const t = await createTestDatabase(engine);
  const db = await openDb({ databaseUrl: t.url, dataDir: t.dataDir });
  await migrate(db);
  return {
    db,
    async close() {
      await db.close();
      await t.drop();
    },
  };
}
