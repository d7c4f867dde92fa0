// Migrations: applied at start-up, safely when two tracker processes start at once.
import { expect, test } from '@jest/globals';
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import pg from 'pg';
import { createTestDatabase } from '../helpers/databases.js';

function migrateInChild(url: string, startAt: number): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '-e', `
      const { openDb } = await import('./tracker/storage/open.ts');
      const { migrate } = await import('./tracker/storage/migrate.ts');
      const db = await openDb({ databaseUrl: process.env.URL, dataDir: '/tmp' });
      await db.query('SELECT 1');
      await new Promise((r) => setTimeout(r, Number(process.env.START_AT) - Date.now()));
      console.log(await migrate(db)); await db.close();`], { env: { PATH: process.env.PATH, URL: url, START_AT: String(startAt) } });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('close', (code) => resolve({ code, out }));
  });
}

test('three processes migrating one PostgreSQL database at once all succeed, once', async () => {
  const t = await createTestDatabase('postgres');
  try {
    // All three begin migrating in the same millisecond.
    const startAt = Date.now() + 3000;
    const results = await Promise.all([1, 2, 3].map(() => migrateInChild(t.url!, startAt)));
    for (const r of results) expect(r).toMatchObject({ code: 0 });
    const versions = new Set(results.map((r) => r.out.trim()));
    expect(versions.size).toBe(1);
    const c = new pg.Client({ connectionString: t.url });
    await c.connect();
    const applied = await c.query<{ version: string }>('SELECT version FROM schema_version WHERE version > 0 ORDER BY version');
    await c.end();
    // Every migration file applied exactly once (numbers may have gaps), up to the newest.
    const files = readdirSync('tracker/storage/migrations').map((name) => Number(name.split('.')[0])).sort((a, b) => a - b);
    expect(applied.rows.map((r: { version: string | number }) => Number(r.version))).toEqual(files);
    expect([...versions][0]).toBe(String(files.at(-1)));
  } finally {
    await t.drop();
  }
});
