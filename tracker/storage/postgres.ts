// The Db interface over node-postgres: a pool, with transactions on one checked-out client.
import pg from 'pg';
import { BinaryCopyOut, binaryCopySql, inlineParams } from './binary-copy.js';
import type { Db, Queryable } from './db.js';

// int8 (bigserial ids, counts) as JavaScript numbers: our ids stay far below 2^53.
pg.types.setTypeParser(20, (v) => Number(v));

export function openPostgres(connectionString: string, max: number): Db {
  const pool = new pg.Pool({ connectionString, max });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  // Nor one checked out: the pool listens only while a client is idle, and a connection lost in a
  // transaction was an 'error' event nobody heard (the process's end). Its query fails instead, and
  // the pool drops the client when it is released.
  pool.on('connect', (client) => client.on('error', () => undefined));

  const onClient = (client: pg.PoolClient) => ({
    query: async <T>(sql: string, params?: unknown[]) => (await client.query(sql, params)).rows as T[],
    exec: async (script: string) => {
      await client.query(script);
    },
  });

  return {
    kind: 'postgres',
    async query<T>(sql: string, params?: unknown[]) {
      return (await pool.query(sql, params)).rows as T[];
    },
    async exec(script) {
      await pool.query(script);
    },
    async transaction<T>(fn: (tx: Queryable) => Promise<T>) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn(onClient(client));
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
    async withSession(fn) {
      const client = await pool.connect();
      try {
        return await fn(onClient(client));
      } finally {
        client.release();
      }
    },
    async *copyBinary(sql: string, params: string[]) {
      const client = await pool.connect();
      let done = false;
      try {
        const copy = new BinaryCopyOut(binaryCopySql(inlineParams(sql, params)));
        client.query(copy);
        for await (const tuples of copy) yield tuples as Buffer;
        done = true;
      } finally {
        // A COPY left half-read cannot be resumed on that connection: it is closed, not reused.
        client.release(!done);
      }
    },
    listen: (channel, onPayload, onResumed) => listen(connectionString, channel, onPayload, onResumed),
    async close() {
      await pool.end();
    },
  };
}

/**
 * LISTEN on a connection of its own (a pooled one would be recycled). If the connection drops it
 * reconnects, so a database restart does not silently stop notifications.
 */
async function listen(connectionString: string, channel: string, onPayload: (payload: string) => void, onResumed?: () => void): Promise<() => Promise<void>> {
  let client: pg.Client | null = null;
  let lost = false;
  let stopped = false;
  const retry = (): void => {
    if (!stopped) setTimeout(() => void connect().catch(retry), 1000).unref();
  };
  const connect = async (): Promise<void> => {
    const c = new pg.Client({ connectionString });
    c.on('notification', (n) => n.channel === channel && n.payload !== undefined && onPayload(n.payload));
    c.on('error', () => {
      lost = true;
      c.end().catch(() => undefined);
      retry();
    });
    await c.connect();
    await c.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    // Stopped while reconnecting: this connection would otherwise outlive the database's close.
    if (stopped) return void (await c.end().catch(() => undefined));
    client = c;
    if (lost) {
      lost = false;
      onResumed?.();
    }
  };
  await connect();
  return async () => {
    stopped = true;
    await client?.end().catch(() => undefined);
  };
}
