// Which accounts the live feed logs positions for: those with a stream open somewhere, and for the
// retention period after their last stream closed, so a client reconnecting with Last-Event-ID
// misses nothing. A fleet nobody streams costs ingest nothing.
import type { Queryable } from '../storage/db.js';

/** NOTIFY channel telling every tracker at once that an account's stream opened (payload: its id). */
export const INTEREST_CHANNEL = 'live_feed_interest';

/** The accounts' streams are open: their positions are logged for `seconds` from now. */
export async function markInterest(db: Queryable, accountIds: readonly string[], seconds: number): Promise<void> {
  if (accountIds.length === 0) return;
  await db.query(
    `INSERT INTO feed_interest (account_id, until) SELECT a, now() + make_interval(secs => $2) FROM unnest($1::text[]) AS a
     ON CONFLICT (account_id) DO UPDATE SET until = greatest(feed_interest.until, excluded.until)`,
    [accountIds, seconds],
  );
}

/** A stream of the account opens: marked, and every tracker told without waiting for its next read. */
export async function announceInterest(db: Queryable, accountId: string, seconds: number): Promise<void> {
  await markInterest(db, [accountId], seconds);
  await db.query('SELECT pg_notify($1, $2)', [INTEREST_CHANNEL, accountId]);
}

export async function interestedAccounts(db: Queryable): Promise<Set<string>> {
  const rows = await db.query<{ account_id: string }>('SELECT account_id FROM feed_interest WHERE until > now()');
  return new Set(rows.map((r) => r.account_id));
}
