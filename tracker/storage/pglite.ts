// The Db interface over PGlite, the embedded PostgreSQL. One process owns the data directory: opening
// it takes the caller's DATA_DIR lock, and closing it gives the lock up.
import { mkdirSync } from 'node:fs';
import { PGlite, types, type Transaction } from '@electric-sql/pglite';
import { binaryCopySql, inlineParams, tuplesOfFile } from './binary-copy.js';
import { makeDataDirPrivate, pgliteDir, type DataDirLock } from './data-dir-lock.js';
import type { Db } from './db.js';

export async function openPglite(lock: DataDirLock): Promise<Db> {
  const dir = pgliteDir(lock.dataDir);
  let pg: PGlite;
  try {
    mkdirSync(dir, { recursive: true });
    pg = await PGlite.create(dir, { parsers: { [types.INT8]: (v: string) => Number(v) } });
    makeDataDirPrivate(lock.dataDir);
  } catch (err) {
    lock.release();
    throw err;
  }

  const on = (q: PGlite | Transaction) => ({
    query: async <T>(sql: string, params?: unknown[]) => (await q.query<T>(sql, params)).rows,
    exec: async (script: string) => {
      await q.exec(script);
    },
  });
  const top = on(pg);

  const db: Db = {
    kind: 'pglite',
    query: top.query,
    exec: top.exec,
    transaction: (fn) => pg.transaction((tx) => fn(on(tx))),
    // PGlite is a single connection: a "session" is the database itself.
    withSession: (fn) => fn(top),
    // PGlite has no COPY to a stream: the COPY is written whole to a blob, then handed over.
    async *copyBinary(sql: string, params: string[]) {
      const result = await pg.query(binaryCopySql(inlineParams(sql, params), "'/dev/blob'"));
      const tuples = tuplesOfFile(Buffer.from(await result.blob!.arrayBuffer()));
      if (tuples.length > 0) yield tuples;
    },
    listen: (channel, onPayload) => pg.listen(channel, onPayload),
    async close() {
      try {
        await pg.close();
      } finally {
        lock.release();
      }
    },
  };
  return db;
}
