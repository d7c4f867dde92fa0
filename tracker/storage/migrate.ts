// Applies the versioned SQL migrations in ./migrations at start-up. On PostgreSQL an advisory lock
// serialises tracker processes that start at once: the second waits, then finds nothing to do.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Postgrator from 'postgrator';
import type { Db } from './db.js';
import { LOCKS, withAdvisoryLock } from './lock.js';

const MIGRATIONS = join(dirname(fileURLToPath(import.meta.url)), 'migrations');

export async function migrate(db: Db): Promise<string> {
  return withAdvisoryLock(db, LOCKS.migrations, async (session) => {
    const postgrator = new Postgrator({
      migrationPattern: join(MIGRATIONS, '*.sql').replaceAll('\\', '/'),
      driver: 'pg',
      schemaTable: 'schema_version',
      execQuery: async (sql) => ({ rows: await session.query(sql) }),
      execSqlScript: (script) => session.exec(script),
    });
    await postgrator.migrate();
    return String(await postgrator.getDatabaseVersion());
  });
}
