// The Db interface over PGlite, the embedded PostgreSQL. One process owns the data directory.
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { PGlite, types, type Transaction } from '@electric-sql/pglite';
import type { Db } from './db.js';

export async function openPglite(dataDir: string): Promise<Db> {
  const dir = resolve(dataDir, 'pgdata');
  mkdirSync(dir, { recursive: true });
  const pg = await PGlite.create(dir, { parsers: { [types.INT8]: (v: string) => Number(v) } });

  const on = (q: PGlite | Transaction) => ({
    query: async <T>(sql: string, params?: unknown[]) => (await q.query<T>(sql, params)).rows,
    exec: async (script: string) => {
      await q.exec(script);
    },
  });
  const top = on(pg);
  let cursors = 0;

  const db: Db = {
    kind: 'pglite',
    query: top.query,
    exec: top.exec,
    transaction: (fn) => pg.transaction((tx) => fn(on(tx))),
    // PGlite is a single connection: a "session" is the database itself.
    withSession: (fn) => fn(top),
    // PGlite is one connection shared by every request: a transaction held open for a stream would
    // block all others, so the cursor is WITH HOLD (materialised inside PGlite, then fetched).
    async *cursor<T>(sql: string, params: unknown[], batchSize: number) {
      const name = `rows_cursor_${++cursors}`;
      await pg.query(`DECLARE ${name} NO SCROLL CURSOR WITH HOLD FOR ${sql}`, params);
      try {
        for (;;) {
          const batch = (await pg.query<T>(`FETCH ${batchSize} FROM ${name}`)).rows;
          if (batch.length > 0) yield batch;
          if (batch.length < batchSize) break;
        }
      } finally {
        await pg.query(`CLOSE ${name}`).catch(() => undefined);
      }
    },
    // PGlite has no COPY to a stream: the same lines come from the cursor above.
    async *copyLines(sql: string, params: string[]) {
      for await (const batch of db.cursor<Record<string, string>>(sql, params, 2000)) {
        yield Buffer.from(batch.map((row) => `${Object.values(row)[0]}\n`).join(''));
      }
    },
    listen: (channel, onPayload) => pg.listen(channel, onPayload),
    async close() {
      await pg.close();
    },
  };
  return db;
}
