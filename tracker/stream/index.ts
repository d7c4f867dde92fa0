// The live feed edge: GET /api/public/v1/stream as Server-Sent Events of the caller's account, fed by
// this process's hub (the dashboard's map opens its streams through `open`, for the session's
// account). Started and stopped with the tracker; on stop every open stream is told why and ended,
// so API requests in flight can finish.
import type { Request, RequestHandler, Response } from 'express';
import { ApiError } from '../../shared/errors.js';
import type { TrackerContext } from '../context.js';
import { EVENT_TYPES } from '../events/types.js';
import { FEED_KINDS, type FeedKind } from '../feed/entries.js';
import { announceInterest, markInterest } from '../feed/interest.js';
import { StreamQuery } from '../feed/schemas.js';
import { callerOf } from '../http/gateway-auth.js';
import { FeedStream, type StreamFilter } from './feed-stream.js';
import { FeedHub } from './hub.js';
import { exposeLiveFeed } from './metrics.js';

export interface LiveFeed {
  handler: RequestHandler;
  /**
   * Answers the request with a stream of the account's entries that pass the filter, resuming after
   * the request's Last-Event-ID when it has one; null when the client left before it began.
   */
  open(req: Request, res: Response, accountId: string, filter: StreamFilter): Promise<FeedStream | null>;
  close(): Promise<void>;
}

const LAST_EVENT_ID = /^[0-9]{1,15}$/;
/** How often the accounts with open streams here renew their interest (well within the retention). */
const INTEREST_EVERY_MS = 60_000;

const listOf = (text: string | undefined) => (text === undefined ? null : new Set(text.split(',')));

/** The query, each parameter given once; a 400 names the parameter at fault. */
function parseStreamQuery(query: Record<string, unknown>): StreamQuery {
  const repeated = Object.entries(query).find(([, v]) => typeof v !== 'string');
  if (repeated) throw new ApiError('bad_request', `invalid query parameter "${repeated[0]}": give it once, as a comma-separated list`);
  const result = StreamQuery.safeParse(query);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  throw new ApiError('bad_request', `invalid query parameter "${String(issue.path[0])}": ${issue.message}`);
}

export async function startLiveFeed(ctx: TrackerContext): Promise<LiveFeed> {
  const { db, config } = ctx;
  const hub = new FeedHub(db, ctx.logger);
  await hub.start();
  exposeLiveFeed(ctx.metrics.registry, hub, ctx.feed);
  const streams = new Set<FeedStream>();
  const retention = config.STREAM_RETENTION_SECONDS;
  const renew = setInterval(() => {
    markInterest(db, hub.accounts(), retention).catch((err: unknown) => ctx.logger.error({ err }, 'renewing live feed interest failed'));
  }, INTEREST_EVERY_MS).unref();
  const limits = { heartbeatMs: config.STREAM_HEARTBEAT_SECONDS * 1000, maxBufferBytes: config.STREAM_MAX_BUFFER_BYTES };

  async function filterOf(accountId: string, q: StreamQuery): Promise<StreamFilter> {
    const kinds = listOf(q.kinds) as Set<FeedKind> | null;
    const unknownKind = kinds && [...kinds].find((k) => !FEED_KINDS.includes(k));
    if (unknownKind) throw new ApiError('bad_request', `invalid query parameter "kinds": ${unknownKind} is not one of ${FEED_KINDS.join(', ')}`);
    const eventTypes = listOf(q.eventTypes);
    const unknownType = eventTypes && [...eventTypes].find((t) => !(EVENT_TYPES as readonly string[]).includes(t));
    if (unknownType) throw new ApiError('bad_request', `invalid query parameter "eventTypes": ${unknownType} is not an event type`);
    const deviceIds = listOf(q.deviceIds);
    if (deviceIds) {
      const found = await db.query<{ id: string }>('SELECT id FROM devices WHERE account_id = $1 AND id = ANY($2::text[])', [accountId, [...deviceIds]]);
      const known = new Set(found.map((d) => d.id));
      const missing = [...deviceIds].find((id) => !known.has(id));
      if (missing) throw new ApiError('not_found', `no device ${missing}`);
    }
    return { deviceIds, kinds, eventTypes };
  }

  async function open(req: Request, res: Response, accountId: string, filter: StreamFilter): Promise<FeedStream | null> {
    const resume = req.get('last-event-id')?.trim();
    if (resume !== undefined && !LAST_EVENT_ID.test(resume)) throw new ApiError('bad_request', 'Last-Event-ID must be an id this stream sent (digits only)');
    // From now on (and for the retention period after the last stream closes) its positions are logged.
    await announceInterest(db, accountId, retention);
    if (!res.socket || res.socket.destroyed) return null; // the client left meanwhile
    const stream = new FeedStream(accountId, res, filter, limits, resume ?? hub.position);
    streams.add(stream);
    stream.onEnd = () => {
      streams.delete(stream);
      hub.remove(stream);
    };
    hub.add(stream);
    if (resume === undefined) return stream;
    try {
      await stream.catchUp(db, resume);
    } catch (err) {
      // The answer has begun: the client reconnects (with its Last-Event-ID) and resumes from there.
      ctx.logger.error({ err }, 'live feed catch-up failed');
      res.destroy();
    }
    return stream;
  }

  const handler: RequestHandler = async (req, res) => {
    // The operation's scope check found the caller; the stream is of its account alone.
    const { accountId } = callerOf(req.headers)!;
    const q = parseStreamQuery(req.query);
    await open(req, res, accountId, await filterOf(accountId, q));
  };

  return {
    handler,
    open,
    async close() {
      clearInterval(renew);
      for (const stream of [...streams]) stream.cutoff('shutting_down');
      await hub.stop();
    },
  };
}
