// Monthly partitions of the positions table: created ahead of time, dropped past the retention, with
// the reports' kept days of the same age.
import type { Db } from './db.js';
import { LOCKS, withAdvisoryLock, type DbSession } from './lock.js';

const MONTHS_AHEAD = 2;

const monthStart = (d: Date, offset = 0) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + offset, 1));
const partitionName = (d: Date) => `positions_${d.getUTCFullYear()}_${String(d.getUTCMonth() + 1).padStart(2, '0')}`;

/** Creates partitions from the month `retentionDays` back to MONTHS_AHEAD ahead; drops older ones. */
export function maintainPartitions(db: Db, retentionDays: number, now = new Date()): Promise<{ created: string[]; dropped: string[] }> {
  return withAdvisoryLock(db, LOCKS.partitions, (session) => maintain(session, retentionDays, now));
}

async function maintain(db: DbSession, retentionDays: number, now: Date): Promise<{ created: string[]; dropped: string[] }> {
  const oldest = monthStart(new Date(now.getTime() - retentionDays * 86_400_000));
  const existing = new Set(
    (await db.query<{ name: string }>(
      "SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent WHERE p.relname = 'positions'",
    )).map((r) => r.name),
  );
  const created: string[] = [];
  for (let m = oldest; m <= monthStart(now, MONTHS_AHEAD); m = monthStart(m, 1)) {
    const name = partitionName(m);
    if (existing.has(name)) continue;
    await db.exec(`CREATE TABLE IF NOT EXISTS ${name} PARTITION OF positions FOR VALUES FROM ('${m.toISOString()}') TO ('${monthStart(m, 1).toISOString()}')`);
    created.push(name);
  }
  const dropped: string[] = [];
  for (const name of existing) {
    const match = /^positions_(\d{4})_(\d{2})$/.exec(name);
    if (!match) continue;
    const end = new Date(Date.UTC(Number(match[1]), Number(match[2]), 1));
    // A month is dropped only when all of it is older than the retention.
    if (end.getTime() <= now.getTime() - retentionDays * 86_400_000) {
      await db.exec(`DROP TABLE IF EXISTS ${name}`);
      dropped.push(name);
    }
  }
  await db.query("DELETE FROM report_days WHERE day < ($1::timestamptz AT TIME ZONE 'UTC')::date", [new Date(now.getTime() - retentionDays * 86_400_000).toISOString()]);
  return { created, dropped };
}
