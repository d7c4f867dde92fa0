// HTTP plumbing both services share: request ids, request logs without secrets, JSON errors, and
// the graceful stop of a server.
import { randomUUID } from 'node:crypto';
import { IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { ErrorRequestHandler, RequestHandler, Request } from 'express';
import { ApiError, errorBody } from './errors.js';
import { maskUrl, type Logger } from './logger.js';

const PLAIN_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** Whether a request carries a body: only with a length above 0 or a transfer coding (RFC 9112, 6.1). */
export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** The client's X-Request-Id when short and plain, else a new one. */
export function requestIdFor(header: string | string[] | undefined): string {
  return typeof header === 'string' && PLAIN_ID.test(header) ? header : randomUUID();
}

declare module 'http' {
  interface IncomingMessage {
    /** The request id: the client's X-Request-Id when plain, else a new one. */
    id: string;
    /** A logger whose lines carry the request id. */
    log: Logger;
  }
}

/** The logger a request's `req.log` is made from, and that child once made. */
const BASE_LOGGER = Symbol('request base logger');
const CHILD_LOGGER = Symbol('request logger');
type Logged = IncomingMessage & { [BASE_LOGGER]?: Logger; [CHILD_LOGGER]?: Logger };

// One getter on the prototype: a property defined on each request would cost every request a
// descriptor, a closure and a change of the request object's shape.
Object.defineProperty(IncomingMessage.prototype, 'log', {
  configurable: true,
  get(this: Logged): Logger {
    const base = this[BASE_LOGGER];
    if (!base) throw new Error('req.log used outside requestLogging');
    return (this[CHILD_LOGGER] ??= base.child({ reqId: this.id }));
  },
});

/**
 * Request id on every response and one log line per request (`request completed`, or `request
 * errored` for 5xx, `request aborted` when the client left first). Written for the hot path: one
 * log call per request, and the request's child logger (req.log) is only made when a handler uses
 * it; a child per request, as pino-http makes two, costs more than the request line itself.
 */
export function requestLogging(logger: Logger): RequestHandler {
  // The request line is built from fixed fields only (the URL with its secrets masked), so it skips
  // the redaction pass, whose wildcard paths would double the cost of every line.
  const lines = logger.child({}, { redact: { paths: [] } });
  return function requestLogging(req, res, next) {
    const id = requestIdFor(req.headers['x-request-id']);
    const started = Date.now();
    const { method, url } = req; // before routers rewrite req.url
    req.id = id;
    res.setHeader('X-Request-Id', id);
    (req as Logged)[BASE_LOGGER] = logger;
    res.once('close', () => {
      const line = { reqId: id, req: { id, method, url: maskUrl(url) }, res: { statusCode: res.statusCode }, responseTime: Date.now() - started };
      if (!res.writableFinished) lines.warn(line, 'request aborted');
      else if (res.statusCode >= 500) lines.error(line, 'request errored');
      else lines.info(line, 'request completed');
    });
    next();
  };
}

/**
 * Stops an HTTP server gracefully: no new connections, requests in flight finish, and keep-alive
 * connections are closed as soon as they are idle (left alone, Node keeps them open for the whole
 * keepAliveTimeout, and serves new requests on them). Whatever is still open at the deadline is cut.
 * Resolves true when nothing had to be cut.
 */
export function closeServer(server: Server, deadline: number): Promise<boolean> {
  return new Promise((resolve) => {
    let inTime = true;
    server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
      if (!res.headersSent) res.setHeader('Connection', 'close');
    });
    const idle = setInterval(() => server.closeIdleConnections(), 50);
    const cut = setTimeout(() => {
      inTime = false;
      server.closeAllConnections();
    }, Math.max(0, deadline - Date.now()));
    server.close(() => {
      clearInterval(idle);
      clearTimeout(cut);
      resolve(inTime);
    });
    server.closeIdleConnections();
  });
}

export const noStore: RequestHandler = (_req, res, next) => {
  res.setHeader('Cache-Control', 'no-store');
  next();
};

export function notFound(): RequestHandler {
  return (_req, _res, next) => next(new ApiError('not_found', 'no such endpoint'));
}

/** body-parser errors carry `type`; map them to the catalogue. */
function fromBodyParser(err: { type?: string; status?: number }): ApiError | null {
  if (err.type === 'entity.too.large') return new ApiError('payload_too_large');
  if (err.type === 'entity.parse.failed') return new ApiError('bad_request', 'the body is not valid JSON');
  if (err.type === 'encoding.unsupported' || err.type === 'charset.unsupported') return new ApiError('unsupported_media_type', 'unsupported body encoding');
  if (typeof err.status === 'number' && err.status >= 400 && err.status < 500) return new ApiError('bad_request');
  return null;
}

export function errorHandler(): ErrorRequestHandler {
  return (err, req: Request, res, _next) => {
    const known = err instanceof ApiError ? err : fromBodyParser(err as { type?: string; status?: number });
    if (!known) {
      req.log?.error({ err }, 'unhandled error');
      if (!res.headersSent) res.status(500).json(errorBody('internal'));
      else res.destroy();
      return;
    }
    if (res.headersSent) return void res.destroy();
    for (const [k, v] of Object.entries(known.headers)) res.setHeader(k, v);
    res.status(known.status).json(known.body());
  };
}
