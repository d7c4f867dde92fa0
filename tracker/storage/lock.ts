// Cluster-wide mutual exclusion for schema and maintenance work (migrations, partitions, the reports'
// kept days): a PostgreSQL session advisory lock held on one connection. PGlite has a single
// process, so nothing to exclude.
import type { Db, Queryable } from './db.js';

export type DbSession = Queryable & { exec(script: string): Promise<void> };

export const LOCKS = { migrations: 724_190_001, partitions: 724_190_002, reportDays: 724_190_003 } as const;

export function withAdvisoryLock<T>(db: Db, key: number, fn: (session: DbSession) => Promise<T>): Promise<T> {
  return db.withSession(async (session) => {
    if (db.kind === 'postgres') await session.query('SELECT pg_advisory_lock($1)', [key]);
    try {
      return await fn(session);
    } finally {
      if (db.kind === 'postgres') await session.query('SELECT pg_advisory_unlock($1)', [key]);
    }
  });
}

/** Runs `fn` under the lock if no other session holds it; else resolves to null at once (work another process is doing). */
export function withAdvisoryLockIfFree<T>(db: Db, key: number, fn: (session: DbSession) => Promise<T>): Promise<T | null> {
  return db.withSession(async (session) => {
    if (db.kind === 'postgres' && !(await session.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [key]))[0]!.ok) return null;
    try {
      return await fn(session);
    } finally {
      if (db.kind === 'postgres') await session.query('SELECT pg_advisory_unlock($1)', [key]);
    }
  });
}
