// Forwarding to the trackers over one keep-alive agent: the gateway states who is calling and proves
// itself with the link secret; any client-sent copy of those headers is dropped first. Each request
// goes to the tracker upstreams.pick() names. One that refuses the connection (the body is only
// sent once connected, so nothing reached it) is passed over and the request tried on the next;
// a GET or HEAD without a body is also tried on the next after a reset or a timeout before its
// answer. Only when no tracker answers does the client get a plain 502. A live-feed stream is
// passed through as each piece arrives, never buffered: once its headers are in, the upstream may
// stay quiet up to STREAM_IDLE_MS (its heartbeats come every 15 s), and a client that goes away
// ends the upstream request at once.
import http from 'node:http';
import type { RequestHandler, Response } from 'express';
import { errorBody } from '../shared/errors.js';
import { hasBody } from '../shared/http.js';
import { INTERNAL_HEADERS } from '../shared/internal.js';
import type { Logger } from '../shared/logger.js';
import { callerOf } from './auth.js';
import { trackUpstream } from './body-limit.js';
import { matchOf } from './routes.js';
import { isUnreachable, type Upstream, type Upstreams } from './upstreams.js';

export interface ForwardOptions {
  upstreams: Upstreams;
  gatewaySecret: string;
  agent: http.Agent;
  /** No answer (or no progress) from a tracker within this time → the next tracker, or 502. */
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
/** A tracker on the internal network connects within milliseconds; past this it is taken for gone. */
const CONNECT_TIMEOUT_MS = 2000;
const CLIENT_SET = Object.values(INTERNAL_HEADERS);
/** Headers of one hop only: the links client→gateway and gateway→tracker each keep their own. */
const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade'];

function timedOut(): Error {
  return Object.assign(new Error('upstream timeout'), { code: 'UPSTREAM_TIMEOUT' });
}

/** Whether the request may be sent again after the tracker got it: a GET or HEAD without a body. */
function repeatable(req: http.IncomingMessage): boolean {
  return (req.method === 'GET' || req.method === 'HEAD') && !hasBody(req);
}

function answerHeaders(proxyRes: http.IncomingMessage): http.OutgoingHttpHeaders {
  const headers: http.OutgoingHttpHeaders = proxyRes.headers;
  for (const name of HOP_BY_HOP) if (headers[name] !== undefined) delete headers[name];
  return headers;
}

export function forward(opts: ForwardOptions): RequestHandler {
  if (!opts.upstreams?.list.length) throw new Error('forward: upstreams are required');
  if (!opts.gatewaySecret) throw new Error('forward: gatewaySecret is required');
  if (!(opts.timeoutMs > 0)) throw new Error('forward: timeoutMs must be positive');
  const connectTimeoutMs = Math.min(CONNECT_TIMEOUT_MS, opts.timeoutMs);

  function unavailable(res: Response, err: Error & { code?: string }, upstream: Upstream | undefined) {
    // The cause stays in the log: the client never sees an internal address or a stack.
    opts.logger.warn({ reqId: res.req.id, code: err.code ?? err.message, tracker: upstream?.label }, 'tracking backend unavailable');
    res.writeHead(502, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', 'Content-Length': Buffer.byteLength(UNAVAILABLE) });
    res.end(UNAVAILABLE);
  }

  function attempt(req: http.IncomingMessage, res: Response, tried: Upstream[], lastError?: Error): void {
    const upstream = opts.upstreams.pick(tried);
    if (!upstream) return unavailable(res, lastError!, tried.at(-1));
    const stream = matchOf(res).route.stream === true;
    let sent = false;
    let answered = false;
    const proxyReq = http.request({ agent: opts.agent, hostname: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers });
    trackUpstream(res, proxyReq);
    proxyReq.setTimeout(opts.timeoutMs, () => proxyReq.destroy(timedOut()));
    const onClose = () => {
      if (!res.writableFinished) proxyReq.destroy();
    };
    res.once('close', onClose);

    // The body goes out only once connected: a tracker that refuses the connection has read nothing.
    proxyReq.once('socket', (socket) => {
      if (!socket.connecting) return send();
      const timer = setTimeout(() => proxyReq.destroy(timedOut()), connectTimeoutMs);
      socket.once('connect', () => {
        clearTimeout(timer);
        send();
      });
      socket.once('close', () => clearTimeout(timer));
    });
    function send() {
      sent = true;
      req.pipe(proxyReq);
    }

    proxyReq.once('response', (proxyRes) => {
      answered = true;
      opts.upstreams.answered(upstream);
      proxyRes.once('error', () => res.destroy());
      // A 413 went out while the body streamed: this answer has no one to go to.
      if (res.headersSent) return void proxyRes.resume();
      if (stream) proxyRes.socket.setTimeout(STREAM_IDLE_MS);
      const headers = answerHeaders(proxyRes);
      // The tracker answered before the whole body arrived (an early 404, 401, 413…): the rest of the
      // body is still streaming in on the client's connection, and a request that nginx sends next
      // on it would wait behind it, for ever if the tracker stops reading. That connection is closed
      // after this answer instead of being reused.
      if (!req.complete) headers.connection = 'close';
      res.writeHead(proxyRes.statusCode!, proxyRes.statusMessage, headers);
      proxyRes.pipe(res);
    });

    proxyReq.once('error', (err: Error & { code?: string }) => {
      res.off('close', onClose);
      if (res.destroyed || res.writableEnded) return;
      if (res.headersSent) return void res.destroy(); // part of the answer is out (or a 413): cut it short
      if (isUnreachable(err)) opts.upstreams.failed(upstream);
      if (answered || (sent && !repeatable(req))) return unavailable(res, err, upstream);
      if (opts.upstreams.list.length > tried.length + 1) opts.logger.warn({ reqId: req.id, code: err.code ?? err.message, tracker: upstream.label }, 'tracker unavailable; trying another');
      if (sent) req.unpipe(proxyReq);
      attempt(req, res, [...tried, upstream], err);
    });
  }

  return function forward(req, res) {
    const headers = req.headers;
    for (const name of CLIENT_SET) delete headers[name];
    delete headers.authorization; // the tracker trusts the stated identity; the token stays here
    if (headers.connection !== undefined) delete headers.connection;
    if (headers['keep-alive'] !== undefined) delete headers['keep-alive'];
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
    attempt(req, res, []);
  };
}
