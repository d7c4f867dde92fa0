// The tracker's health endpoints, answered without the gateway's secret and without a request log
// line (probes come every few seconds). The tracker's HTTP port is internal: the gateway never
// forwards these paths (they are not in its route table).
// /healthz: the process serves. /readyz: the database answers; with a read replica its state is
// reported too (ok, lagging or down), never making the tracker unready: reads fall back to the primary.
// The primary's check is the metric fleet_database_up too, taken at each scrape.
import type { RequestHandler } from 'express';
import { Gauge, type Registry } from 'prom-client';
import { errorBody } from '../../shared/errors.js';
import type { Db } from '../storage/db.js';
import type { ReadDb } from '../storage/read-replica.js';

/** A probe that waits longer than this has failed anyway (Kubernetes' default probe timeout is 1 s). */
const CHECK_TIMEOUT_MS = 1000;

async function databaseAnswers(db: Db): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), CHECK_TIMEOUT_MS)));
  const query = db.query('SELECT 1').then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([query, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export function healthChecks(db: Db, reads: Db | ReadDb = db): { healthz: RequestHandler; readyz: RequestHandler } {
  return {
    healthz: (_req, res) => void res.set('Cache-Control', 'no-store').json({ status: 'ok' }),
    readyz: async (_req, res) => {
      const database = (await databaseAnswers(db)) ? 'ok' : 'down';
      const checks = 'replica' in reads ? { database, replica: reads.replica() } : { database };
      res.set('Cache-Control', 'no-store');
      if (database === 'ok') res.json({ status: 'ready', checks });
      else res.status(503).json({ ...errorBody('unavailable', 'not ready'), checks });
    },
  };
}

/** fleet_database_up: 1 when the database answered `SELECT 1` within a second at the scrape, else 0. */
export function exposeDatabaseUp(registry: Registry, db: Db): void {
  new Gauge({
    name: 'fleet_database_up',
    help: 'Whether PostgreSQL answered this tracker within 1 s at the scrape: 1 or 0',
    registers: [registry],
    async collect() {
      this.set((await databaseAnswers(db)) ? 1 : 0);
    },
  });
}
