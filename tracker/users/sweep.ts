// Periodic clean-up of users' sign-in records that no longer count: ended sign-in sessions and
// sign-in counts whose window has passed. Both are refused by their queries anyway; this only keeps tables small.
import type { TrackerContext } from '../context.js';
import { sweepLoginFailures } from './login-limits.js';
import { sweepSessions } from './sign-in-sessions.js';

const EVERY_MS = 10 * 60_000;

export function startSignInSweep(ctx: TrackerContext): () => void {
  const timer = setInterval(() => {
    Promise.all([sweepSessions(ctx.db), sweepLoginFailures(ctx.db, ctx.config)]).catch((err: unknown) => ctx.logger.error({ err }, 'sign-in clean-up failed'));
  }, EVERY_MS).unref();
  return () => clearInterval(timer);
}
