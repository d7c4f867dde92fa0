// The OsmAnd HTTP protocol (Traccar Client and other phone apps) on OSMAND_PORT: a report is a
// GET or POST with query parameters, or a JSON body. It is answered 200 only once stored; the
// body carries the text of commands queued for the device. A phone has no live connection, so it
// counts as online until DEVICE_TIMEOUT passes without a report.
// Knowing an identifier must tell, and give, as little as the protocol allows: a report for an
// unknown identifier, or without the unit's report key once it has one, gets the very answer of a
// unit with no queued command (200, empty), after about as long; each address has a report budget.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeServer } from '../../shared/http.js';
import { claimQueued, deliverOldestSent } from '../commands/repository.js';
import { reportKeyAccepts, reportKeyHash } from '../devices/report-key.js';
import { findDeviceByImei } from '../devices/repository.js';
import { asStored } from '../positions/stored.js';
import { decodeOsmAnd } from '../protocols/osmand/index.js';
import { ReportWindows } from './address-limits.js';
import { alarmReport, type ConnectionDeps } from './connection.js';
import { screen } from './refusals.js';
import type { LiveConnection } from './sessions.js';

const MAX_BODY = 64 * 1024;

function readBody(req: IncomingMessage): Promise<string | null> {
  return new Promise((resolve) => {
    let size = 0;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        resolve(null);
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => resolve(null));
  });
}

function parseInput(req: IncomingMessage, body: string): Record<string, unknown> | string {
  const query = Object.fromEntries(new URL(req.url ?? '/', 'http://device').searchParams);
  if (body.trim() === '') return query;
  const type = req.headers['content-type'] ?? '';
  if (type.includes('application/x-www-form-urlencoded')) return { ...query, ...Object.fromEntries(new URLSearchParams(body)) };
  try {
    const parsed = JSON.parse(body) as unknown;
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // falls through
  }
  return 'the body must be a JSON object or form parameters';
}

/** The report key apart from the report (a secret must never be stored as a position attribute). */
function takeKey(req: IncomingMessage, input: Record<string, unknown>): { key: string | undefined; report: Record<string, unknown> } {
  const { key, ...report } = input;
  const given = key ?? new URL(req.url ?? '/', 'http://device').searchParams.get('key');
  return { key: typeof given === 'string' ? given : undefined, report };
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

export interface OsmAndServer {
  port: number;
  server: Server;
  /** Graceful stop: reports in flight are stored and answered; what is left at the deadline is cut. */
  close(deadline: number): Promise<void>;
}

export async function startOsmAndServer(port: number, host: string, reportsPerMinute: number, deps: ConnectionDeps): Promise<OsmAndServer> {
  const online = new Map<string, { conn: LiveConnection; timer: NodeJS.Timeout }>();
  const budgets = new ReportWindows(reportsPerMinute);
  const answerTime = new AnswerTime();

  function seen(deviceId: string): void {
    const entry = online.get(deviceId);
    if (entry) {
      entry.timer.refresh();
      return;
    }
    const forget = () => {
      clearTimeout(timer);
      if (online.get(deviceId)?.conn === conn) online.delete(deviceId);
    };
    // Replaced by a TCP connection: the next report attaches the phone again.
    const conn: LiveConnection = { protocol: 'osmand', sendLocate: () => false, close: forget };
    const timer = setTimeout(() => {
      forget();
      void deps.sessions.detach(deviceId, conn);
    }, deps.idleTimeoutMs).unref();
    online.set(deviceId, { conn, timer });
    void deps.sessions.attach(deviceId, 'osmand', conn).then((replaced) => {
      if (!replaced) return;
      deps.stats.countTakeover('newer');
      deps.logger.warn({ deviceId, protocol: 'osmand' }, 'device connection taken over by a newer one');
    });
  }

  /** Whether a report may speak for the unit under DEVICE_TAKEOVER=older: not while a TCP connection does. */
  function mayReport(deviceId: string): boolean {
    const current = deps.sessions.get(deviceId);
    if (deps.takeover === 'newer' || current === undefined || current === online.get(deviceId)?.conn) return true;
    deps.stats.countTakeover('older');
    deps.logger.warn({ deviceId, protocol: 'osmand' }, 'second connection of a connected device refused');
    return false;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const reply = (status: number, text: string): void => {
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(text);
    };
    if (req.method !== 'GET' && req.method !== 'POST') return reply(405, 'method not allowed');
    const wait = budgets.take(req.socket.remoteAddress ?? '');
    if (wait > 0) {
      deps.stats.osmandLimited++;
      res.setHeader('Retry-After', String(wait));
      return reply(429, 'too many reports');
    }
    const startedAt = performance.now();
    const body = await readBody(req);
    if (body === null) return reply(413, 'report too large');
    const input = parseInput(req, body);
    if (typeof input === 'string') return reply(400, input);
    const { key, report } = takeKey(req, input);
    const decoded = decodeOsmAnd(report);
    if (!decoded.ok) {
      deps.stats.countDecodeError('osmand');
      return reply(400, decoded.error);
    }
    // Like any malformed report, an implausible one is refused whole, with the reason, before any lookup.
    const screened = screen(deps, 'osmand', decoded.identity.slice(0, 20), decoded.positions, decoded.attributes);
    if (screened.refused) return reply(400, `implausible ${screened.refused}: report refused`);
    const found = /^[0-9]{5,20}$/.test(decoded.identity) ? await findDeviceByImei(deps.db, decoded.identity) : null;
    const device = found && reportKeyAccepts(await reportKeyHash(deps.db, found.id), key) ? found : null;
    if (!device) {
      deps.stats.unknownIdentities++;
      if (deps.stats.shouldLogUnknown(decoded.identity)) {
        deps.logger.warn({ identity: decoded.identity.slice(0, 20), protocol: 'osmand', reason: found ? 'report key' : 'unknown identifier' }, 'unknown device refused');
      }
      await answerTime.waitFrom(startedAt);
      return reply(200, '');
    }
    if (!mayReport(device.id)) {
      await answerTime.waitFrom(startedAt);
      return reply(200, '');
    }
    const positions = decoded.positions.map(asStored);
    deps.stats.positionsReceived += positions.length;
    await deps.batcher.add(positions.map((position) => ({ deviceId: device.id, position })), alarmReport(device.id, decoded.attributes));
    seen(device.id);
    // The report after a command is the phone's answer to it.
    const p = positions[0];
    if (p && (await deliverOldestSent(deps.db, device.id, 'position report', { lat: p.lat, lng: p.lng, speed: p.speed, heading: p.heading, timestamp: p.deviceTime.toISOString() }))) {
      deps.commandOutcomes.inc({ status: 'delivered' });
    }
    const commands = await claimQueued(deps.db, device.id);
    deps.commandOutcomes.inc({ status: 'sent' }, commands.length);
    if (commands.length === 0) answerTime.note(startedAt);
    reply(200, commands.map((c) => c.type).join('\n'));
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      deps.logger.error({ err }, 'OsmAnd report failed');
      if (!res.headersSent) res.writeHead(503).end('try again');
    });
  });
  server.requestTimeout = 30_000;
  const bound = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
  return {
    port: bound,
    server,
    async close(deadline) {
      for (const { timer } of online.values()) clearTimeout(timer);
      await closeServer(server, deadline);
    },
  };
}
