// Forwarding to the tracker over one keep-alive agent: the gateway states who is calling and proves
// itself with the link secret; any client-sent copy of those headers is dropped first. Every
// failure to get an answer (refused, reset, unresolvable, timed out) is a plain 502. A live-feed
// stream is passed through as each piece arrives, never buffered: once its headers are in, the
// upstream may stay quiet up to STREAM_IDLE_MS (its heartbeats come every 15 s), and a client that
// goes away ends the upstream request at once.
import http from 'node:http';
import type { Socket } from 'node:net';
import type { RequestHandler, Response } from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import { errorBody } from '../shared/errors.js';
import { INTERNAL_HEADERS } from '../shared/internal.js';
import type { Logger } from '../shared/logger.js';
import { callerOf } from './auth.js';
import { trackUpstream } from './body-limit.js';
import { matchOf } from './routes.js';

export interface ForwardOptions {
  target: string;
  gatewaySecret: string;
  agent: http.Agent;
  /** No answer (or no progress) from the tracker within this time → 502. */
  timeoutMs: number;
  logger: Logger;
}

/** Idle connections are kept shorter than the tracker's keepAliveTimeout, so it never closes one under us. */
export function upstreamAgent(): http.Agent {
  return new http.Agent({ keepAlive: true, keepAliveMsecs: 1000, maxFreeSockets: 256, timeout: 60_000 });
}

const UNAVAILABLE = JSON.stringify(errorBody('backend_unavailable'));
/** A stream whose upstream sends nothing, not even a heartbeat, for this long is cut. */
const STREAM_IDLE_MS = 60_000;
const CLIENT_SET = Object.values(INTERNAL_HEADERS);

export function forward(opts: ForwardOptions): RequestHandler {
  const target = new URL(opts.target);
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new Error('forward: target must be an http(s) URL');
  if (!opts.gatewaySecret) throw new Error('forward: gatewaySecret is required');
  if (!(opts.timeoutMs > 0)) throw new Error('forward: timeoutMs must be positive');

  function unavailable(err: Error & { code?: string }, _req: http.IncomingMessage, res: http.ServerResponse | Socket) {
    if (!(res instanceof http.ServerResponse)) return void res.destroy();
    if (res.headersSent) {
      // Part of the answer is out already (or a 413 was sent): all that is left is to cut it short.
      if (!res.writableEnded) res.destroy();
      return;
    }
    // The cause stays in the log: the client never sees an internal address or a stack.
    opts.logger.warn({ reqId: (res as Response).req?.id, code: err.code ?? err.message }, 'tracking backend unavailable');
    res.writeHead(502, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', 'Content-Length': Buffer.byteLength(UNAVAILABLE) });
    res.end(UNAVAILABLE);
  }

  const proxy = createProxyMiddleware<http.IncomingMessage, http.ServerResponse>({
    target: opts.target,
    agent: opts.agent,
    proxyTimeout: opts.timeoutMs,
    on: {
      proxyReq: (proxyReq, _req, res) => {
        trackUpstream(res as Response, proxyReq);
        if (!matchOf(res as Response).route.stream) return;
        res.on('close', () => proxyReq.destroy());
        proxyReq.on('response', (proxyRes) => proxyRes.socket.setTimeout(STREAM_IDLE_MS));
      },
      // The tracker answered before the whole body arrived (an early 404, 401, 413…): the rest of the
      // body is still streaming in on this connection, and a request that nginx sends next on it
      // would wait behind it, for ever if the tracker stops reading. The connection is closed after
      // this answer instead of being reused.
      proxyRes: (proxyRes, req) => {
        if (!req.complete) proxyRes.headers.connection = 'close';
      },
      error: unavailable,
    },
  });

  return function forward(req, res, next) {
    const headers = req.headers;
    for (const name of CLIENT_SET) delete headers[name];
    delete headers.authorization; // the tracker trusts the stated identity; the token stays here
    headers[INTERNAL_HEADERS.secret] = opts.gatewaySecret;
    headers['x-request-id'] = String(req.id);
    headers[INTERNAL_HEADERS.clientAddress] = req.ip ?? '';
    headers[INTERNAL_HEADERS.clientProto] = req.protocol;
    const caller = callerOf(res);
    if (caller) {
      headers[INTERNAL_HEADERS.accountId] = caller.accountId;
      headers[INTERNAL_HEADERS.tokenId] = caller.tokenId;
      headers[INTERNAL_HEADERS.scopes] = caller.scopes.join(' ');
    }
    void proxy(req, res, next);
  };
}
