// Opens the database the settings name: PostgreSQL when there is a DATABASE_URL, else PGlite in
// DATA_DIR under the directory's lock. Each engine is loaded only when it is used.
import { resolve } from 'node:path';
import { DataDirInUse, DataDirLock, tryLockDataDir } from './data-dir-lock.js';
import type { Db } from './db.js';

export interface OpenOptions {
  databaseUrl?: string;
  dataDir: string;
  /** Connections in the pool (PostgreSQL only). */
  poolSize?: number;
  /** PGlite only: DATA_DIR's lock, already taken; without it openDb takes it or refuses at once. */
  lock?: DataDirLock;
}

export async function openDb(options: OpenOptions): Promise<Db> {
  if (options.databaseUrl) {
    const { openPostgres } = await import('./postgres.js');
    return openPostgres(options.databaseUrl, options.poolSize ?? 10);
  }
  const { openPglite } = await import('./pglite.js');
  const lock = options.lock ?? tryLockDataDir(options.dataDir, 'tracker');
  if (!(lock instanceof DataDirLock)) throw new DataDirInUse(resolve(options.dataDir), lock);
  return openPglite(lock);
}
