// Request bodies stream through to the tracker unparsed; this caps them at 1 MiB, or at the
// route's own smaller cap: a declared Content-Length is checked up front, a chunked body is
// counted as it streams.
import type { ClientRequest } from 'node:http';
import type { RequestHandler, Response } from 'express';
import { ApiError } from '../shared/errors.js';
import { matchOf } from './routes.js';

export const MAX_BODY_BYTES = 1024 * 1024;

interface BodyLocals {
  bodyTooLarge?: boolean;
  upstream?: ClientRequest;
}

// Closing the connection spares reading (and discarding) the rest of an oversized upload.
const tooLarge = (maxBytes: number) => new ApiError('payload_too_large', `the request body is larger than ${maxBytes} bytes`, { Connection: 'close' });

export function bodyLimit(opts: { maxBytes: number } = { maxBytes: MAX_BODY_BYTES }): RequestHandler {
  if (!Number.isInteger(opts.maxBytes) || opts.maxBytes < 0) throw new Error('bodyLimit: maxBytes must be a whole number of bytes');

  return function bodyLimit(req, res, next) {
    const maxBytes = Math.min(opts.maxBytes, matchOf(res).route.maxBodyBytes ?? opts.maxBytes);
    const declared = req.headers['content-length'];
    if (declared !== undefined) return next(Number(declared) > maxBytes ? tooLarge(maxBytes) : undefined);
    if (req.headers['transfer-encoding'] === undefined) return next();

    // Counting must see every chunk, so the stream is held paused until the proxy pipes it on
    // (a 'data' listener alone would start the flow before anyone forwards it).
    req.pause();
    let seen = 0;
    const count = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen <= maxBytes) return;
      req.off('data', count);
      refuse(res, tooLarge(maxBytes));
    };
    req.on('data', count);
    next();
  };
}

/** Stops forwarding an oversized streamed body: abort the upstream request and answer 413. */
function refuse(res: Response, error: ApiError): void {
  const locals = res.locals as BodyLocals;
  const req = res.req;
  locals.bodyTooLarge = true;
  req.unpipe();
  locals.upstream?.destroy();
  req.resume(); // discard the rest so the client gets to read the answer
  if (res.headersSent) return void res.destroy();
  res.status(error.status).set(error.headers).json(error.body());
}

/** Called by the proxy once the upstream request exists, so a later overflow can abort it. */
export function trackUpstream(res: Response, upstream: ClientRequest): void {
  const locals = res.locals as BodyLocals;
  if (locals.bodyTooLarge) return void upstream.destroy();
  locals.upstream = upstream;
}
