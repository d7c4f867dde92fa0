// The HTTP transport of a device protocol (OsmAnd: Traccar Client and other phone apps, on
// OSMAND_PORT): a report is a GET or POST with query parameters, or a JSON body, and goes through
// the report pipeline. It is answered 200 only once stored; the body carries the commands queued
// for the device, one a line, which are sent by that answer. A phone has no live connection, so
// it counts as online until DEVICE_TIMEOUT passes without a report.
// Knowing an identifier must tell, and give, as little as the protocol allows: a report for an
// unknown identifier, or without the unit's report key once it has one, gets the very answer of a
// unit with no queued command (200, empty), after about as long; each address has a report budget.
// Requests are read off the connection by http-wire.ts. Behind a TCP balancer
// (DEVICE_PROXY_PROTOCOL) each connection's PROXY protocol header is read first, and its address is
// the phone's. A connection sends a whole request within LOGIN_TIMEOUT_SECONDS of opening or is
// closed, and stays open 65 s after each answer.
// Once a phone's report is accepted, its next ones with the same identifier and key (on any
// connection: many phones open one per report) are accepted without looking the unit up again, as a
// TCP device identifies once per connection, until the unit is removed, given another identifier
// or report key (forget), or the phone is detached.
import { timingSafeEqual } from 'node:crypto';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { parse as parseQuery } from 'node:querystring';
import { reportKeyAccepts, reportKeyHash } from '../devices/report-key.js';
import { hashSecret } from '../inbound/secret.js';
import type { HttpProtocol } from '../protocols/types.js';
import { ReportWindows } from './address-limits.js';
import type { LiveConnection } from './connections.js';
import { serveHttp, type HttpAnswer, type HttpConnection, type HttpRequest } from './http-wire.js';
import { loginDeadline } from './login-deadline.js';
import { deviceAddress, peerAddress } from './proxied-connection.js';
import { answered, identify, screenReport, speakFor, standing, store, type PipelineDeps } from './pipeline.js';

/**
 * Query or form parameters into `report`, a repeated one by its last value (as a parameter list
 * read in order sets it), the report key kept apart; returns the key. Only the target's query is
 * parsed, not the whole URL: a phone's report comes with no other use for it.
 */
function parameters(text: string, report: Record<string, unknown>): string | undefined {
  const parsed = parseQuery(text);
  let key: string | undefined;
  for (const name in parsed) {
    const given = parsed[name]!;
    const value = Array.isArray(given) ? given[given.length - 1]! : given;
    if (name === 'key') key = value;
    else report[name] = value;
  }
  return key;
}

/** The query of a request target: after its '?', up to any '#'. */
function queryOf(target: string): string {
  const at = target.indexOf('?');
  if (at < 0) return '';
  const end = target.indexOf('#', at);
  return target.slice(at + 1, end < 0 ? undefined : end);
}

/**
 * The report's fields and its report key (a secret must never be stored as a position attribute):
 * from the query, with a form body's parameters over it, or a JSON body's fields (its key may also
 * come in the query).
 */
function parseInput(req: HttpRequest): { key: string | undefined; report: Record<string, unknown> } | string {
  const { body } = req;
  const query: Record<string, unknown> = {};
  const queryKey = parameters(queryOf(req.target), query);
  if (body.trim() === '') return { key: queryKey, report: query };
  const type = req.headers['content-type'] ?? '';
  if (type.includes('application/x-www-form-urlencoded')) {
    const formKey = parameters(body, query);
    return { key: formKey ?? queryKey, report: query };
  }
  const parsed = parseJsonObject(body);
  if (!parsed) return 'the body must be a JSON object or form parameters';
  const { key, ...report } = parsed;
  const given = key ?? queryKey;
  return { key: typeof given === 'string' ? given : undefined, report };
}

function parseJsonObject(body: string): Record<string, unknown> | null {
  try {
    const parsed = JSON.parse(body) as unknown;
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * Handling time of accepted reports, smoothed: a refused report is answered after as long, so the
 * answer's timing does not tell a known identifier from an unknown one.
 */
class AnswerTime {
  private ms = 5;
  note(startedAt: number): void {
    this.ms = this.ms * 0.9 + (performance.now() - startedAt) * 0.1;
  }
  waitFrom(startedAt: number): Promise<void> {
    const left = this.ms - (performance.now() - startedAt);
    return new Promise((resolve) => setTimeout(resolve, Math.max(0, left)));
  }
}

export interface HttpReportServer {
  port: number;
  /** The unit was removed or its identifier or report key changed: its next report is looked up again. */
  forget(deviceId: string): void;
  /** Graceful stop: reports in flight are stored and answered; what is left at the deadline is cut. */
  close(deadline: number): Promise<void>;
}

/** What a phone's last accepted report established. */
interface Accepted {
  /** The hash of the key that report presented; null: it presented none. */
  keyHash: Buffer | null;
  deviceId: string;
  /** The phone's handle when it was accepted: once detached or forgotten, the entry is void. */
  conn: LiveConnection;
}

export interface HttpReportLimits {
  reportsPerMinute: number;
  /** Every connection starts with a PROXY protocol header (DEVICE_PROXY_PROTOCOL). */
  proxyProtocol: boolean;
}

/**
 * How long a phone's connection stays open after an answer, waiting for its next report: a phone
 * reporting every few seconds up to a minute keeps its connection between reports, as a TCP unit
 * does (5 s closed it before a phone reporting every 10 s came back, so each of its reports paid a
 * new TCP handshake, and through a TLS terminator a TLS one too).
 */
const PHONE_KEEP_ALIVE_MS = 65_000;
/** From a request's first byte until it is whole. */
const REQUEST_TIMEOUT_MS = 30_000;

export async function startHttpReportServer(protocol: HttpProtocol, port: number, host: string, limits: HttpReportLimits, deps: PipelineDeps & { idleTimeoutMs: number; loginTimeoutMs: number }): Promise<HttpReportServer> {
  const online = new Map<string, { conn: LiveConnection; timer: NodeJS.Timeout }>();
  const budgets = new ReportWindows(limits.reportsPerMinute);
  const answerTime = new AnswerTime();
  /** By identifier: the last accepted report of each phone online here. */
  const accepted = new Map<string, Accepted>();

  /** The unit a report with this identifier speaks for without a lookup, or null when it must be looked up. */
  function acceptedBefore(identity: string, key: string | undefined): string | null {
    const a = accepted.get(identity);
    if (!a) return null;
    if (online.get(a.deviceId)?.conn !== a.conn) {
      accepted.delete(identity);
      return null;
    }
    if (a.keyHash === null || key === undefined) return a.keyHash === null && key === undefined ? a.deviceId : null;
    return timingSafeEqual(a.keyHash, hashSecret(key)) ? a.deviceId : null;
  }

  /** Stands for a device while no report of it was accepted here: it speaks for no one. */
  const absent: LiveConnection = { protocol: protocol.name, write: null, close: () => undefined };

  /** The device's handle here, attached (speaking for the device) with its first accepted report. */
  function seen(deviceId: string, remoteAddress: string | undefined): LiveConnection {
    const entry = online.get(deviceId);
    if (entry) {
      entry.timer.refresh();
      return entry.conn;
    }
    const forget = () => {
      clearTimeout(timer);
      if (online.get(deviceId)?.conn === conn) online.delete(deviceId);
    };
    // Replaced by a TCP connection: the next report attaches the phone again. No bytes can be
    // pushed to a phone: its commands go in the answer to its next report.
    const conn: LiveConnection = { protocol: protocol.name, write: null, close: forget };
    const timer = setTimeout(() => {
      forget();
      void deps.connections.detach(deviceId, conn);
    }, deps.idleTimeoutMs).unref();
    online.set(deviceId, { conn, timer });
    void speakFor(deps, deviceId, { conn, remoteAddress });
    return conn;
  }

  async function handle(req: HttpRequest, socket: Socket): Promise<HttpAnswer> {
    const reply = (status: number, text: string): HttpAnswer => ({ status, text });
    if (req.method !== 'GET' && req.method !== 'POST') return reply(405, 'method not allowed');
    const remoteAddress = deviceAddress(socket);
    const wait = budgets.take(remoteAddress);
    if (wait > 0) {
      deps.stats.osmandLimited++;
      return { status: 429, text: 'too many reports', retryAfter: wait };
    }
    const startedAt = performance.now();
    const input = parseInput(req);
    if (typeof input === 'string') return reply(400, input);
    const { key, report } = input;
    const decoded = protocol.decode(report, new Date());
    if ('error' in decoded) {
      deps.stats.countDecodeError(protocol.name);
      return reply(400, decoded.error);
    }
    // Like any malformed report, an implausible one is refused whole, with the reason, before any lookup.
    const screened = screenReport(deps, protocol.name, decoded.identity.slice(0, 20), decoded.positions, decoded.attributes);
    if (screened.refused) return reply(400, `implausible ${screened.refused}: report refused`);
    const known = acceptedBefore(decoded.identity, key);
    const device = known ? { id: known } : await identify(deps, protocol.name, decoded.identity, async (found) => reportKeyAccepts(await reportKeyHash(deps.db, found.id), key));
    // Under DEVICE_TAKEOVER=older a report is refused while a TCP connection speaks for the unit.
    if (!device || standing(deps, device.id, { conn: online.get(device.id)?.conn ?? absent, remoteAddress }) === 'refused') {
      await answerTime.waitFrom(startedAt);
      return reply(200, '');
    }
    await store(deps, device.id, screened);
    const conn = seen(device.id, remoteAddress);
    if (!known) accepted.set(decoded.identity, { keyHash: key === undefined ? null : hashSecret(key), deviceId: device.id, conn });
    const replied = answered(deps, device.id, { conn, remoteAddress }, decoded, screened.positions);
    if (replied) await replied;
    const commands = await deps.dispatcher.collect(device.id, protocol.name);
    if (commands.length === 0) answerTime.note(startedAt);
    return reply(200, commands.join('\n'));
  }

  /** Every open connection, and its requests' reader once it has one (behind a balancer: once its header is read). */
  const connections = new Map<Socket, HttpConnection | null>();
  function serve(socket: Socket): void {
    // As on the TCP ports, a connection that has not sent a whole request LOGIN_TIMEOUT_SECONDS after
    // it opened is closed, whatever it sends.
    const deadline = loginDeadline(socket, deps.stats, deps.loginTimeoutMs);
    const connection = serveHttp(socket, (req) => handle(req, socket), {
      keepAliveMs: PHONE_KEEP_ALIVE_MS,
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
      onFirst: () => clearTimeout(deadline),
      onError: (err) => deps.logger.error({ err, protocol: protocol.name }, 'device report failed'),
    });
    connections.set(socket, connection);
  }
  const server = createServer((socket) => {
    connections.set(socket, null);
    socket.once('close', () => connections.delete(socket));
    if (!limits.proxyProtocol) return serve(socket);
    void peerAddress(socket, protocol.name, true, deps).then((address) => {
      if (address === null || socket.destroyed) return;
      serve(socket);
      // After the reader listens: the bytes that came with the header reach it before anything read later.
      socket.resume();
    });
  });
  const bound = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
  return {
    port: bound,
    forget(deviceId) {
      online.get(deviceId)?.conn.close();
    },
    async close(deadline) {
      for (const { timer } of online.values()) clearTimeout(timer);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const connection of connections.values()) connection?.closeWhenIdle();
      const cut = setTimeout(() => {
        for (const socket of connections.keys()) socket.destroy();
      }, Math.max(0, deadline - Date.now()));
      await closed;
      clearTimeout(cut);
    },
  };
}
