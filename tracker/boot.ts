// Opening the tracker's storage: database, migrations, keys. Shared by the server and the CLI.
import type { Config } from '../shared/config.js';
import { trackerKeys } from '../shared/keys.js';
import { privateKeyFrom } from '../shared/tokens.js';
import { openDb, type Db } from './storage/db.js';
import { migrate } from './storage/migrate.js';

export async function openStorage(config: Config): Promise<Db> {
  const db = await openDb({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR });
  try {
    await migrate(db);
  } catch (err) {
    await db.close();
    throw err;
  }
  return db;
}

export function loadTrackerKeys(config: Config) {
  const keys = trackerKeys(config);
  return { privateKey: privateKeyFrom(keys.privateKeyPem), gatewaySecret: keys.gatewaySecret };
}
