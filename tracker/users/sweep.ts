// Periodic clean-up of users' sign-in records that no longer count: ended sign-in sessions and
// sign-in counts whose window has passed, in one tracker. Both are refused by their queries anyway; this only keeps tables small.
import type { TrackerContext } from '../context.js';
import { sweepLoginFailures } from './login-limits.js';
import { sweepSessions } from './sign-in-sessions.js';

const EVERY_MS = 10 * 60_000;

export function startSignInSweep(ctx: TrackerContext): () => void {
  return ctx.jobs.every('sign-in-sweep', EVERY_MS, () => Promise.all([sweepSessions(ctx.db), sweepLoginFailures(ctx.db, ctx.config)]));
}
