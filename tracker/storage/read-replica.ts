// The database reads that tolerate lag go to (DATABASE_READ_URL): a streaming replica while it answers
// and is at most DATABASE_READ_MAX_LAG_SECONDS behind the primary, else the primary itself. Once a
// second the primary's WAL position is sampled and the replica's replay position read: the replica
// is as fresh as the newest sample it has replayed, so its lag is known to within that second, also
// while the primary is idle. A read the replica fails for being unreachable is answered by the
// primary (and the replica left out until the next check finds it back). Writes never go there.
import { isDatabaseUnavailable } from '../../shared/db-errors.js';
import type { Logger } from '../../shared/logger.js';
import type { Db } from './db.js';
import { openPostgres } from './postgres.js';

export type ReplicaState = 'ok' | 'lagging' | 'down';

export interface ReadDb extends Db {
  /** The replica's state as last checked, and its lag in seconds (null while it does not answer). */
  replica(): { state: ReplicaState; lagSeconds: number | null };
}

const CHECK_EVERY_MS = 1000;
const CHECK_TIMEOUT_MS = 1000;
const POOL_SIZE = 10;

/** "16/B374D848" → a number comparable across samples. */
const lsn = (text: string): bigint => {
  const [hi, lo] = text.split('/');
  return (BigInt(`0x${hi}`) << 32n) + BigInt(`0x${lo}`);
};

function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)));
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

export async function openReadReplica(primary: Db, url: string, maxLagSeconds: number, logger: Logger): Promise<ReadDb> {
  const replica = openPostgres(url, POOL_SIZE);
  let state: ReplicaState = 'down';
  let lagSeconds: number | null = null;
  /** The primary's WAL position, sampled each check, newest last, over the allowed lag and a little more. */
  const samples: { at: number; lsn: bigint }[] = [];

  function settle(next: ReplicaState, lag: number | null): void {
    if (next !== state) logger[next === 'ok' ? 'info' : 'warn']({ replica: next, lagSeconds: lag, maxLagSeconds }, next === 'ok' ? 'reading from the replica' : 'reading from the primary: the replica is ' + next);
    state = next;
    lagSeconds = lag;
  }

  async function check(): Promise<void> {
    const [{ at_lsn: primaryLsn }] = (await primary.query<{ at_lsn: string }>('SELECT pg_current_wal_lsn()::text AS at_lsn')) as [{ at_lsn: string }];
    samples.push({ at: Date.now(), lsn: lsn(primaryLsn) });
    while (samples.length > maxLagSeconds + 5) samples.shift();
    let replayed: bigint;
    try {
      const [row] = await within(CHECK_TIMEOUT_MS, replica.query<{ replayed: string | null }>('SELECT pg_last_wal_replay_lsn()::text AS replayed'));
      if (!row?.replayed) throw new Error('not a streaming replica (pg_last_wal_replay_lsn is null)');
      replayed = lsn(row.replayed);
    } catch (err) {
      if (state !== 'down') logger.warn({ err }, 'the read replica does not answer');
      return settle('down', null);
    }
    const newestReplayed = [...samples].reverse().find((s) => s.lsn <= replayed);
    const lag = newestReplayed === samples.at(-1) ? 0 : newestReplayed ? (Date.now() - newestReplayed.at) / 1000 : (Date.now() - samples[0]!.at) / 1000;
    settle(lag <= maxLagSeconds && newestReplayed ? 'ok' : 'lagging', lag);
  }

  await check().catch((err: unknown) => logger.error({ err }, 'checking the read replica failed'));
  const timer = setInterval(() => void check().catch((err: unknown) => logger.error({ err }, 'checking the read replica failed')), CHECK_EVERY_MS).unref();

  const reader = (): Db => (state === 'ok' ? replica : primary);
  /** The replica's answer, or the primary's when the replica turns out to be unreachable. */
  async function read<T>(fn: (db: Db) => Promise<T>): Promise<T> {
    const db = reader();
    try {
      return await fn(db);
    } catch (err) {
      if (db === primary || !isDatabaseUnavailable(err)) throw err;
      settle('down', null);
      return fn(primary);
    }
  }

  return {
    kind: primary.kind,
    query: (sql, params) => read((db) => db.query(sql, params)),
    transaction: (fn) => read((db) => db.transaction(fn)),
    withSession: (fn) => read((db) => db.withSession(fn)),
    exec: (script) => primary.exec(script),
    listen: (channel, onPayload) => primary.listen(channel, onPayload),
    async *copyBinary(sql, params) {
      const db = reader();
      const chunks = db.copyBinary(sql, params);
      let first: IteratorResult<Buffer>;
      try {
        first = await chunks.next();
      } catch (err) {
        if (db === primary || !isDatabaseUnavailable(err)) throw err;
        settle('down', null);
        return yield* primary.copyBinary(sql, params);
      }
      if (first.done) return;
      yield first.value;
      yield* chunks;
    },
    replica: () => ({ state, lagSeconds }),
    async close() {
      clearInterval(timer);
      await replica.close();
    },
  };
}
