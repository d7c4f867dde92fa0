// Sign-in and set-password attempts, limited in the database (the tracker's own store, shared by
// its replicas). Failures for one email address are counted per client address: after
// DASHBOARD_LOGIN_MAX_FAILURES from one address, each further try from there must wait 2, 4, 8…
// seconds (at most DASHBOARD_LOGIN_WINDOW_MINUTES), so an attacker elsewhere slows only their own
// guesses and never locks the owner out. Each client address may also try at most
// DASHBOARD_LOGIN_MAX_FAILURES_PER_ADDRESS sign-ins (and DASHBOARD_SET_PASSWORD_MAX_PER_ADDRESS
// set-password forms) in a fixed window. An attempt is counted before the password is checked, in
// one statement, so parallel guesses cannot slip past; a successful sign-in then takes it back.
// Email addresses are counted whether or not they have a user, and stored as digests.
import type { TrackerConfig } from '../../shared/config.js';
import type { Queryable } from '../storage/db.js';
import { digest } from './secrets.js';

export type LimitSettings = Pick<
  TrackerConfig,
  'DASHBOARD_LOGIN_MAX_FAILURES' | 'DASHBOARD_LOGIN_MAX_FAILURES_PER_ADDRESS' | 'DASHBOARD_LOGIN_WINDOW_MINUTES' | 'DASHBOARD_SET_PASSWORD_MAX_PER_ADDRESS'
>;

export interface AttemptKeys {
  email: string;
  address: string;
}

const pairKey = (who: AttemptKeys) => digest(`${who.email}\n${who.address}`);

/**
 * Counts one attempt of a kind for a client address in a fixed window. Returns 0 when the attempt
 * may go ahead, else the seconds until the window ends.
 */
async function countInWindow(db: Queryable, kind: 'address' | 'set_password', address: string, max: number, settings: LimitSettings): Promise<number> {
  const rows = await db.query<{ failures: number; seconds_left: number }>(
    `INSERT INTO dashboard_login_failures AS f (kind, key, failures, window_start)
     VALUES ($1, $2, 1, now())
     ON CONFLICT (kind, key) DO UPDATE SET
       failures = CASE WHEN f.window_start <= now() - make_interval(mins => $3::int) THEN 1 ELSE f.failures + 1 END,
       window_start = CASE WHEN f.window_start <= now() - make_interval(mins => $3::int) THEN now() ELSE f.window_start END
     RETURNING failures, ceil(extract(epoch FROM f.window_start + make_interval(mins => $3::int) - now()))::int AS seconds_left`,
    [kind, address, settings.DASHBOARD_LOGIN_WINDOW_MINUTES],
  );
  const row = rows[0]!;
  return row.failures > max ? Math.max(1, row.seconds_left) : 0;
}

/**
 * Counts a sign-in for the (email, address) pair, unless the pair must still wait. A pair whose
 * last try is older than the window starts afresh. Returns 0 when the attempt may go ahead, else
 * the seconds left to wait.
 */
async function countPair(db: Queryable, who: AttemptKeys, settings: LimitSettings): Promise<number> {
  const key = pairKey(who);
  // The failure count this attempt makes; from the allowance on, the next try waits 2^k seconds.
  const failures = `CASE WHEN f.window_start <= now() - make_interval(mins => $2::int) THEN 1 ELSE f.failures + 1 END`;
  const waitAfter = (n: string) =>
    `CASE WHEN ${n} >= $3::int THEN now() + least(make_interval(secs => power(2, least(${n} - $3::int + 1, 20))), make_interval(mins => $2::int)) END`;
  const counted = await db.query(
    `INSERT INTO dashboard_login_failures AS f (kind, key, failures, window_start, blocked_until)
     VALUES ('email_address', $1, 1, now(), ${waitAfter('1')})
     ON CONFLICT (kind, key) DO UPDATE SET failures = ${failures}, window_start = now(), blocked_until = ${waitAfter(failures)}
     WHERE f.blocked_until IS NULL OR f.blocked_until <= now()
     RETURNING failures`,
    [key, settings.DASHBOARD_LOGIN_WINDOW_MINUTES, settings.DASHBOARD_LOGIN_MAX_FAILURES],
  );
  if (counted.length > 0) return 0;
  const rows = await db.query<{ seconds_left: number }>(
    "SELECT ceil(extract(epoch FROM blocked_until - now()))::int AS seconds_left FROM dashboard_login_failures WHERE kind = 'email_address' AND key = $1",
    [key],
  );
  return Math.max(1, rows[0]?.seconds_left ?? 1);
}

/**
 * Counts one sign-in attempt for the email address from the client address. Returns 0 when the
 * attempt may go ahead, else the seconds to wait.
 */
export async function countAttempt(db: Queryable, who: AttemptKeys, settings: LimitSettings): Promise<number> {
  const perAddress = await countInWindow(db, 'address', who.address, settings.DASHBOARD_LOGIN_MAX_FAILURES_PER_ADDRESS, settings);
  if (perAddress > 0) return perAddress;
  return countPair(db, who, settings);
}

/** Counts one set-password form from the client address: 0 when it may go ahead, else the seconds to wait. */
export function countSetPassword(db: Queryable, address: string, settings: LimitSettings): Promise<number> {
  return countInWindow(db, 'set_password', address, settings.DASHBOARD_SET_PASSWORD_MAX_PER_ADDRESS, settings);
}

/** A successful sign-in: the pair starts afresh, the client address gets its attempt back. */
export async function forgiveAttempt(db: Queryable, who: AttemptKeys): Promise<void> {
  await db.query("DELETE FROM dashboard_login_failures WHERE kind = 'email_address' AND key = $1", [pairKey(who)]);
  await db.query("UPDATE dashboard_login_failures SET failures = greatest(failures - 1, 0) WHERE kind = 'address' AND key = $1", [who.address]);
}

/** Removes counts whose window has ended (a pair's wait never outlasts the window after its last try). */
export async function sweepLoginFailures(db: Queryable, settings: LimitSettings): Promise<void> {
  await db.query('DELETE FROM dashboard_login_failures WHERE window_start <= now() - make_interval(mins => $1::int)', [settings.DASHBOARD_LOGIN_WINDOW_MINUTES]);
}
