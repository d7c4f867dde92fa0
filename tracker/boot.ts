// Opening the tracker's storage: database, migrations, keys. Shared by the server and the CLI.
import { ConfigError, type TrackerConfig } from '../shared/config.js';
import { trackerKeys } from '../shared/keys.js';
import type { Logger } from '../shared/logger.js';
import { privateKeyFrom } from '../shared/tokens.js';
import { describeOwner, lockDataDirForTracker, type DataDirLock } from './storage/data-dir-lock.js';
import type { Db } from './storage/db.js';
import { openDb } from './storage/open.js';
import { openReadReplica, type ReadDb } from './storage/read-replica.js';
import { migrate } from './storage/migrate.js';

/** Opens and migrates the database; with PGlite, `lock` is DATA_DIR's, taken by the caller. */
export async function openStorage(config: TrackerConfig, lock?: DataDirLock): Promise<Db> {
  const db = await openDb({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR, lock });
  try {
    await migrate(db);
  } catch (err) {
    await db.close();
    throw err;
  }
  return db;
}

/** The database for reads that tolerate lag: the replica of DATABASE_READ_URL, or the primary itself. */
export async function openReads(config: TrackerConfig, db: Db, logger: Logger): Promise<Db | ReadDb> {
  if (!config.DATABASE_READ_URL) return db;
  if (db.kind !== 'postgres') throw new ConfigError('Invalid setting DATABASE_READ_URL=(hidden): a read replica needs DATABASE_URL (PostgreSQL)');
  return openReadReplica(db, config.DATABASE_READ_URL, config.DATABASE_READ_MAX_LAG_SECONDS, logger);
}

/** The tracker's lock on DATA_DIR (embedded database only): a second tracker is refused. */
export async function lockTrackerDataDir(config: TrackerConfig, logger: Logger): Promise<DataDirLock | undefined> {
  if (config.DATABASE_URL) return undefined;
  const lock = await lockDataDirForTracker(config.DATA_DIR, config.DATA_DIR_LOCK_WAIT_SECONDS * 1000, (owner) =>
    logger.warn({ dataDir: config.DATA_DIR, ownerPid: owner.pid }, `waiting for ${describeOwner(owner)} to finish with DATA_DIR`),
  );
  if (lock.replaced) logger.warn({ dataDir: lock.dataDir, previousPid: lock.replaced.pid }, 'took over DATA_DIR from a process that ended without releasing it');
  return lock;
}

export function loadTrackerKeys(config: TrackerConfig) {
  const keys = trackerKeys(config);
  return { privateKey: privateKeyFrom(keys.privateKeyPem), gatewaySecret: keys.gatewaySecret };
}
