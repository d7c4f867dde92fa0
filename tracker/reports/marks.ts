// Kept report days (day-cache.ts) that positions were stored into: marked changed in the transaction
// that stores them, so the next report or the keeper computes them again. Only records of a day that
// has ended count (a unit emptying its memory after days out of coverage, a record held back over
// midnight): the loop over the batch compares one number per record and allocates nothing for the
// others, and such records are rare.
import type { DevicePosition } from '../positions/repository.js';
import type { Queryable } from '../storage/db.js';

const DAY_MS = 86_400_000;

/** Marks the ended UTC days of these stored positions (valid and unflagged: what reports read). */
export async function markChangedDays(tx: Queryable, stored: DevicePosition[], now = Date.now()): Promise<void> {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  let days: Set<string> | null = null;
  for (const r of stored) {
    const p = r.position;
    if (p.deviceTime.getTime() >= today || !p.valid || r.filtered) continue;
    (days ??= new Set()).add(`${r.deviceId} ${p.deviceTime.toISOString().slice(0, 10)}`);
  }
  if (days === null) return;
  // In key order, as day-cache.ts keeps days, so the two never deadlock.
  const keys = [...days].sort().map((k) => k.split(' '));
  await tx.query(
    `INSERT INTO report_days (device_id, day, generation) SELECT d, day, 1 FROM unnest($1::text[], $2::date[]) AS m(d, day)
     ON CONFLICT (device_id, day) DO UPDATE SET pieces = NULL, generation = report_days.generation + 1`,
    [keys.map((k) => k[0]), keys.map((k) => k[1])],
  );
}
