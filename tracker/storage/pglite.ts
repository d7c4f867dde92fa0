// The Db interface over PGlite, the embedded PostgreSQL. One process owns the data directory.
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { PGlite, types, type Transaction } from '@electric-sql/pglite';
import { binaryCopySql, inlineParams, tuplesOfFile } from './binary-copy.js';
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
      await pg.close();
    },
  };
  return db;
}
