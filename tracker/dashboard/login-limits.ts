// Sign-in attempts are limited per email address and per client address, in fixed windows of
// DASHBOARD_LOGIN_WINDOW_MINUTES, in the database (the tracker's own store, shared by its
// replicas). An attempt is counted before the password is checked, in one statement, so parallel
// guesses cannot slip past the limit; a successful sign-in then takes its count back. Email
// addresses are counted whether or not they have a user, and stored as digests.
import type { Config } from '../../shared/config.js';
import type { Queryable } from '../storage/db.js';
import { digest } from './secrets.js';

export type LimitSettings = Pick<Config, 'DASHBOARD_LOGIN_MAX_FAILURES' | 'DASHBOARD_LOGIN_MAX_FAILURES_PER_ADDRESS' | 'DASHBOARD_LOGIN_WINDOW_MINUTES'>;

export interface AttemptKeys {
  email: string;
  address: string;
}

const keysOf = (who: AttemptKeys) => [digest(who.email), who.address];

/**
 * Counts one attempt for the email address and the client address. Returns 0 when the attempt may
 * go ahead, else the seconds until the window that refuses it ends.
 */
export async function countAttempt(db: Queryable, who: AttemptKeys, settings: LimitSettings): Promise<number> {
  const rows = await db.query<{ kind: 'email' | 'address'; failures: number; seconds_left: number }>(
    `INSERT INTO dashboard_login_failures AS f (kind, key, failures, window_start)
     VALUES ('email', $1, 1, now()), ('address', $2, 1, now())
     ON CONFLICT (kind, key) DO UPDATE SET
       failures = CASE WHEN f.window_start <= now() - make_interval(mins => $3::int) THEN 1 ELSE f.failures + 1 END,
       window_start = CASE WHEN f.window_start <= now() - make_interval(mins => $3::int) THEN now() ELSE f.window_start END
     RETURNING kind, failures, ceil(extract(epoch FROM f.window_start + make_interval(mins => $3::int) - now()))::int AS seconds_left`,
    [...keysOf(who), settings.DASHBOARD_LOGIN_WINDOW_MINUTES],
  );
  const max = { email: settings.DASHBOARD_LOGIN_MAX_FAILURES, address: settings.DASHBOARD_LOGIN_MAX_FAILURES_PER_ADDRESS };
  const refusing = rows.filter((r) => r.failures > max[r.kind]);
  return refusing.length === 0 ? 0 : Math.max(1, ...refusing.map((r) => r.seconds_left));
}

/** A successful sign-in: the email address starts afresh, the client address gets its attempt back. */
export async function forgiveAttempt(db: Queryable, who: AttemptKeys): Promise<void> {
  const [emailKey, address] = keysOf(who);
  await db.query("DELETE FROM dashboard_login_failures WHERE kind = 'email' AND key = $1", [emailKey]);
  await db.query("UPDATE dashboard_login_failures SET failures = greatest(failures - 1, 0) WHERE kind = 'address' AND key = $1", [address]);
}

/** Removes counts whose window has ended. */
export async function sweepLoginFailures(db: Queryable, settings: LimitSettings): Promise<void> {
  await db.query('DELETE FROM dashboard_login_failures WHERE window_start <= now() - make_interval(mins => $1::int)', [settings.DASHBOARD_LOGIN_WINDOW_MINUTES]);
}
