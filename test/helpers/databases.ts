// Test databases: a fresh PostgreSQL database per call on the machine's server (dropped afterwards),
// or a fresh PGlite data directory. Both with the product's migrations applied.
// Creating an embedded database costs PGlite 4-6 s of CPU, which on a busy CI machine ran suites'
// hooks past their timeout; so the first one made in a run is kept empty in the folder the global
// setup names, and every PGlite test database starts as a copy of it (migrations run on each copy).
import { cpSync, existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import Postgrator from 'postgrator';
import type { Db } from '../../tracker/storage/db.js';
import { openDb } from '../../tracker/storage/open.js';
import { migrate } from '../../tracker/storage/migrate.js';
import { pgliteDir } from '../../tracker/storage/data-dir-lock.js';

export const ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
export type Engine = 'postgres' | 'pglite';
export const ENGINES: Engine[] = ['postgres', 'pglite'];

export interface TestDatabase {
  /** DATABASE_URL for postgres; undefined for PGlite (then dataDir holds the data). */
  url: string | undefined;
  dataDir: string;
  drop(): Promise<void>;
}

/** An empty embedded database's DATA_DIR to copy, made on first use; none outside a jest run. */
async function pgliteTemplate(): Promise<string | undefined> {
  const template = process.env.FLEET_TEST_PGLITE_TEMPLATE;
  if (!template || existsSync(pgliteDir(template))) return template;
  const made = mkdtempSync(join(tmpdir(), 'fleet-test-'));
  await (await openDb({ dataDir: made })).close();
  try {
    renameSync(pgliteDir(made), pgliteDir(template)); // atomic: a suite in another worker may have been first
  } catch (e) {
    if (!existsSync(pgliteDir(template))) throw e;
  }
  rmSync(made, { recursive: true, force: true });
  return template;
}

export async function createTestDatabase(engine: Engine): Promise<TestDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), 'fleet-test-'));
  const template = engine === 'pglite' ? await pgliteTemplate() : undefined;
  if (template) cpSync(pgliteDir(template), pgliteDir(dataDir), { recursive: true });
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

const MIGRATIONS = join(dirname(fileURLToPath(import.meta.url)), '../../tracker/storage/migrations/*.sql');

/**
 * A fresh database of the engine with the product's migrations applied up to `version` only, for a
 * later migration's test: `use` stores data as that version held it, then migrates on. Dropped after.
 */
export async function atMigration(engine: Engine, version: string, use: (db: Db) => Promise<void>): Promise<void> {
  const t = await createTestDatabase(engine);
  const db = await openDb({ databaseUrl: t.url, dataDir: t.dataDir });
  try {
    const postgrator = new Postgrator({ migrationPattern: MIGRATIONS, driver: 'pg', schemaTable: 'schema_version', execQuery: async (sql) => ({ rows: await db.query(sql) }), execSqlScript: (sql) => db.exec(sql) });
    await postgrator.migrate(version);
    await use(db);
  } finally {
    await db.close();
    await t.drop();
  }
}
