// Before any test: the machine's PostgreSQL and Redis must answer, or the run stops with one clear line.
// It also names the folder where the first PGlite test database leaves an empty copy for the others
// (test/helpers/databases.ts); global teardown removes it.
import { mkdtempSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function reachable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = new Socket();
    s.setTimeout(2000);
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
    s.once('timeout', () => (s.destroy(), resolve(false)));
    s.connect(port, '127.0.0.1');
  });
}

export default async function globalSetup(): Promise<void> {
  for (const [name, port] of [['PostgreSQL', 5432], ['Redis', 6379]] as const) {
    if (!(await reachable(port))) throw new Error(`${name} is not answering on 127.0.0.1:${port}; start it (see .ci/run)`);
  }
  process.env.FLEET_TEST_PGLITE_TEMPLATE = mkdtempSync(join(tmpdir(), 'fleet-test-template-'));
}
