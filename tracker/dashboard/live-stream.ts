// GET /dashboard/stream: the fleet view's live positions, as Server-Sent Events of the session's
// account from the live feed (the same hub and log as the API's stream; the composition hands its
// `open` in). The session is the stream's credential: signing out ends the session's streams at
// once, and every SESSION_CHECK_MS the session is looked up again (counting as use, as the poll
// did), so a session that expired or was ended elsewhere ends its streams too.
import type { Request, Response, Router } from 'express';
import { Router as router } from 'express';
import { ApiError } from '../../shared/errors.js';
import type { TrackerContext } from '../context.js';
import type { FeedKind } from '../feed/entries.js';
import { sessionOf } from './security.js';
import { currentSession } from './session-cookie.js';

/** The part of the live feed the dashboard uses (tracker/stream, handed in by the composition). */
export interface LiveStreams {
  open(
    req: Request,
    res: Response,
    accountId: string,
    filter: { deviceIds: null; kinds: Set<FeedKind>; eventTypes: null },
  ): Promise<{ cutoff(reason: 'signed_out'): void } | null>;
}

/** Streams one session may hold open at once (tabs of the dashboard); the next is refused. */
export const MAX_STREAMS_PER_SESSION = 5;
/** How often an open stream's session is looked up again. */
const SESSION_CHECK_MS = 60_000;

export interface DashboardStreams {
  routes: Router;
  /** Ends the streams of a session (it signed out). */
  endSession(idHash: string): void;
}

export function dashboardStreams(ctx: TrackerContext, live: LiveStreams): DashboardStreams {
  /** Session id hash → its open streams' cut-off functions. */
  const bySession = new Map<string, Set<() => void>>();
  const routes = router();

  routes.get('/stream', async (req, res) => {
    const session = sessionOf(res);
    const mine = bySession.get(session.idHash) ?? new Set<() => void>();
    if (mine.size >= MAX_STREAMS_PER_SESSION) {
      throw new ApiError('rate_limited', `At most ${MAX_STREAMS_PER_SESSION} dashboard pages with a live map may be open at once; close one first.`, { 'Retry-After': '10' });
    }
    const stream = await live.open(req, res, session.accountId, { deviceIds: null, kinds: new Set(['position']), eventTypes: null });
    if (!stream) return;
    const end = () => stream.cutoff('signed_out');
    mine.add(end);
    bySession.set(session.idHash, mine);
    const check = setInterval(() => {
      currentSession(ctx.db, req, ctx.config)
        .then((still) => still === null && end())
        .catch((err: unknown) => ctx.logger.warn({ err }, 'dashboard stream: session check failed'));
    }, SESSION_CHECK_MS).unref();
    res.on('close', () => {
      clearInterval(check);
      mine.delete(end);
      if (mine.size === 0 && bySession.get(session.idHash) === mine) bySession.delete(session.idHash);
    });
  });

  return {
    routes,
    endSession(idHash) {
      for (const end of [...(bySession.get(idHash) ?? [])]) end();
    },
  };
}
