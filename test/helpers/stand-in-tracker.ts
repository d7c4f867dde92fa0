// A small stand-in for the tracker on a real port, for the gateway's contract tests: it checks the
// link secret like the tracker does, serves the token status endpoint, answers the public routes
// for the calling account only, and echoes what the gateway told it.
import { generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { ApiError } from '../../shared/errors.js';
import { errorHandler } from '../../shared/http.js';
import type { Scope } from '../../shared/scopes.js';
import { signToken } from '../../shared/tokens.js';
import { callerOf, gatewayAuth, type Caller } from '../../tracker/http/gateway-auth.js';

export interface StandInTracker {
  url: string;
  port: number;
  /** PEM of the public key the gateway verifies with; the stand-in mints with the private one. */
  publicKeyPem: string;
  gatewaySecret: string;
  /** Requests that reached a public route or the inbound endpoint (not token checks). */
  hits: number;
  /** Every answer carries the caller the gateway stated, as `caller`. */
  readonly echoesCaller: true;
  /** The last request's headers as received, for header assertions. */
  lastHeaders: Record<string, string | string[] | undefined>;
  /** Mints a token and registers it as active; returns it with its id. */
  mint(accountId: string, scopes: Scope[]): { token: string; tokenId: string };
  /** Signed with this stand-in's key but never registered: the "unknown token" case. */
  mintUnknown(accountId: string, scopes: Scope[]): string;
  revoke(tokenId: string): void;
  addDevice(accountId: string): string;
  /** A device, or a geofence, driver, rule or alert of the account. */
  addOwned(accountId: string, kind: string): string;
  addInbound(secret: string): string;
  close(): Promise<void>;
}

/** `{ data: [50 devices] }`-sized device records, as the real tracker would answer. */
export function deviceRecord(id: string, i: number) {
  return {
    id,
    name: `Truck ${i}`,
    plate: `AB-${String(i).padStart(3, '0')}-CD`,
    imei: String(356938035643800 + i),
    status: i % 3 ? 'online' : 'offline',
    speed: 42.5,
    position: { lat: 48.85 + i / 1000, lng: 2.35 + i / 1000 },
    lastUpdate: '2026-01-01T12:00:00.000Z',
  };
}

let counter = 0;
const newId = (prefix: string) => `${prefix}_${(++counter).toString(36)}${randomBytes(6).toString('hex')}`;

export async function startStandInTracker(): Promise<StandInTracker> {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const gatewaySecret = randomBytes(32).toString('base64url');
  const tokens = new Map<string, { accountId: string; active: boolean }>();
  const devices = new Map<string, string>();
  /** Geofences, drivers, rules and alerts: id → account. */
  const owned = new Map<string, string>();
  const inbound = new Map<string, string>();

  const app = express();
  app.disable('x-powered-by');
  app.get('/healthz', (_req, res) => void res.json({ status: 'ok' })); // open, as on the tracker
  app.use(gatewayAuth(gatewaySecret));
  app.get('/internal/tokens/:id', (req, res) => {
    const t = tokens.get(req.params.id);
    res.json({ id: req.params.id, active: t?.active ?? false, accountId: t?.accountId ?? null });
  });

  app.use((req, _res, next) => {
    state.hits++;
    state.lastHeaders = { ...req.headers };
    next();
  });
  const echo = (req: express.Request) => ({ caller: callerOf(req.headers), requestId: req.headers['x-request-id'] });
  function caller(req: express.Request): Caller {
    const c = callerOf(req.headers);
    if (!c) throw new ApiError('unauthorized', 'no caller stated');
    return c;
  }
  function ownDevice(req: express.Request): string {
    const id = String(req.params.id);
    if (devices.get(id) !== caller(req).accountId) throw new ApiError('not_found', 'no such device');
    return id;
  }
  /** Counts the streamed body, so tests see that it arrived whole and unparsed. */
  async function bodyBytes(req: express.Request): Promise<number> {
    let n = 0;
    for await (const chunk of req) n += (chunk as Buffer).length;
    return n;
  }

  const v1 = '/api/public/v1';
  app.get(`${v1}/devices`, (req, res) => {
    const account = caller(req).accountId;
    const data = [...devices].filter(([, a]) => a === account).map(([id], i) => deviceRecord(id, i));
    res.json({ data, ...echo(req) });
  });
  app.get(`${v1}/devices/:id`, (req, res) => void res.json({ data: deviceRecord(ownDevice(req), 0), ...echo(req) }));
  app.get(`${v1}/devices/:id/positions`, (req, res) => {
    ownDevice(req);
    res.json({ data: [{ lat: 48.85, lng: 2.35, speed: 10, heading: 90, timestamp: '2026-01-01T12:00:00.000Z' }], ...echo(req) });
  });
  app.get(`${v1}/devices/:id/commands/types`, (req, res) => {
    ownDevice(req);
    res.json({ protocol: 'gt06', types: ['locate', 'engineStop'], ...echo(req) });
  });
  app.get(`${v1}/devices/:id/commands/:commandId`, (req, res) => {
    ownDevice(req);
    res.json({ data: { id: req.params.commandId, status: 'queued' }, ...echo(req) });
  });
  app.post(`${v1}/devices/:id/locate`, async (req, res) => {
    ownDevice(req);
    res.json({ ok: true, queued: true, commandId: newId('cmd'), bodyBytes: await bodyBytes(req), ...echo(req) });
  });
  app.get(`${v1}/alerts`, (req, res) => void res.json({ data: [], ...echo(req), query: req.query }));
  // The write-scope resources, events and the live feed (a plain answer here): each answers its success status for the owner only.
  const own = (req: express.Request) => {
    if (owned.get(String(req.params.id)) !== caller(req).accountId) throw new ApiError('not_found', 'no such resource');
  };
  const simple: [method: 'get' | 'post' | 'put' | 'patch' | 'delete', path: string, status: number, check: ((req: express.Request) => unknown) | null][] = [
    ['post', `${v1}/alerts/:id/acknowledge`, 200, own],
    ['get', `${v1}/events`, 200, null],
    ...['trips', 'stops', 'summary'].map((name): (typeof simple)[number] => ['get', `${v1}/reports/${name}`, 200, null]),
    ['get', `${v1}/stream`, 200, null],
    ['get', `${v1}/settings`, 200, null],
    ['patch', `${v1}/settings`, 200, null],
    ['post', `${v1}/devices`, 201, null],
    ['post', `${v1}/devices/bulk`, 200, null],
    ['patch', `${v1}/devices/:id`, 200, ownDevice],
    ['delete', `${v1}/devices/:id`, 200, ownDevice],
    ['get', `${v1}/devices/:id/commands`, 200, ownDevice],
    ['post', `${v1}/devices/:id/commands`, 200, ownDevice],
    ['get', `${v1}/devices/:id/driver`, 200, ownDevice],
    ['put', `${v1}/devices/:id/driver`, 200, ownDevice],
    ['get', `${v1}/devices/:id/settings`, 200, ownDevice],
    ['patch', `${v1}/devices/:id/settings`, 200, ownDevice],
    ...['geofences', 'drivers', 'rules'].flatMap((name): typeof simple => [
      ['get', `${v1}/${name}`, 200, null],
      ['post', `${v1}/${name}`, 201, null],
      ['get', `${v1}/${name}/:id`, 200, own],
      ['put', `${v1}/${name}/:id`, 200, own],
      ['delete', `${v1}/${name}/:id`, 204, own],
    ]),
  ];
  for (const [method, path, status, check] of simple) {
    app[method](path, async (req, res) => {
      check?.(req);
      const bytes = await bodyBytes(req);
      if (status === 204) res.status(204).end();
      else res.status(status).json({ bodyBytes: bytes, ...echo(req) });
    });
  }
  for (const records of ['incidents', 'expenses', 'work-orders', 'unit-notes']) app.get(`${v1}/${records}`, (req, res) => void res.json({ data: [], ...echo(req) }));
  app.post('/api/inbound/:id', async (req, res) => {
    const secret = inbound.get(req.params.id);
    if (secret === undefined || req.query.secret !== secret) throw new ApiError('unauthorized', 'unknown webhook or wrong secret');
    res.json({ ok: true, bodyBytes: await bodyBytes(req), ...echo(req) });
  });
  // The dashboard: a sign-in that answers with a cookie and a redirect, pages that echo what arrived.
  app.post('/dashboard/login', async (req, res) => {
    const body = await bodyBytes(req);
    res.cookie('fleet_session', 'abc', { httpOnly: true, sameSite: 'lax', path: '/dashboard' }).set('X-Body-Bytes', String(body)).redirect(303, '/dashboard/devices');
  });
  app.get('/dashboard/{*page}', (req, res) => {
    const h = req.headers;
    res.json({ cookie: h.cookie ?? null, clientAddress: h['x-client-address'], clientProto: h['x-client-proto'], caller: callerOf(h) });
  });
  app.get('/api-docs', (_req, res) => void res.type('html').send('<!doctype html><title>API</title>'));
  app.get('/api-docs/init.js', (_req, res) => void res.type('application/javascript').send('window.ui = {};'));
  app.get('/api-docs/assets/:file', (req, res) => void res.type('text/css').send(`/* ${req.params.file} */`));
  app.get('/api-docs/openapi.json', (_req, res) => void res.json({ openapi: '3.1.0', info: { title: 'Fleet API', version: '1' } }));
  app.use((_req, _res, next) => next(new ApiError('not_found')));
  app.use(errorHandler());

  const server: Server = createServer(app);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  const sign = (key: KeyObject, tokenId: string, accountId: string, scopes: Scope[]) => signToken({ tokenId, accountId, scopes }, key);
  const state: StandInTracker = {
    url: `http://127.0.0.1:${port}`,
    port,
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    gatewaySecret,
    hits: 0,
    echoesCaller: true,
    lastHeaders: {},
    mint(accountId, scopes) {
      const tokenId = newId('tok');
      tokens.set(tokenId, { accountId, active: true });
      return { token: sign(privateKey, tokenId, accountId, scopes), tokenId };
    },
    mintUnknown: (accountId, scopes) => sign(privateKey, newId('tok'), accountId, scopes),
    revoke(tokenId) {
      const t = tokens.get(tokenId);
      if (t) t.active = false;
    },
    addDevice(accountId) {
      const id = newId('dev');
      devices.set(id, accountId);
      return id;
    },
    addOwned(accountId, kind) {
      if (kind === 'device') return state.addDevice(accountId);
      const id = newId(kind.slice(0, 3));
      owned.set(id, accountId);
      return id;
    },
    addInbound(secret) {
      const id = newId('inb');
      inbound.set(id, secret);
      return id;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return state;
}

/** A token signed with a key the gateway does not trust. */
export function foreignToken(accountId: string, scopes: Scope[]): string {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return signToken({ tokenId: newId('tok'), accountId, scopes }, privateKey);
}
