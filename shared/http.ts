// Express plumbing both services share: request ids, request logs without secrets, JSON errors.
import { randomUUID } from 'node:crypto';
import type { ErrorRequestHandler, RequestHandler, Request } from 'express';
import { pinoHttp } from 'pino-http';
import { ApiError, errorBody } from './errors.js';
import { maskUrl, type Logger } from './logger.js';

const PLAIN_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** The client's X-Request-Id when short and plain, else a new one. */
export function requestIdFor(header: string | string[] | undefined): string {
  return typeof header === 'string' && PLAIN_ID.test(header) ? header : randomUUID();
}

/** Request id on every response and every log line about the request (req.log). */
export function requestLogging(logger: Logger): RequestHandler {
  return pinoHttp({
    logger,
    genReqId(req, res) {
      const id = requestIdFor(req.headers['x-request-id']);
      res.setHeader('X-Request-Id', id);
      return id;
    },
    // The serializers read the raw request and response: the default wrapping first copies every
    // header into a new object per request, only for these three fields to be picked out of it.
    wrapSerializers: false,
    serializers: {
      req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, url: maskUrl(req.url) }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
    quietReqLogger: true,
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
