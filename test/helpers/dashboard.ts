// The dashboard through the whole stack: an in-process tracker on a fresh PostgreSQL database
// behind an in-process gateway on a real port (PUBLIC_BASE_URL is that gateway's URL), and a
// cookie-keeping HTTP client that posts forms the way a browser on the dashboard's pages does (with
// its Origin).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGateway, type Gateway } from '../../gateway/app.js';
import { parseConfig } from '../../shared/config.js';
import { ensureEmbeddedKeys } from '../../shared/keys.js';
import { createLogger } from '../../shared/logger.js';
import { publicKeyFrom } from '../../shared/tokens.js';
import { runVerb } from '../../tracker/admin/verbs.js';
import { startTracker, type RunningTracker } from '../../tracker/server.js';
import { createTestDatabase, type TestDatabase } from './databases.js';
import { uniquePrefix } from './gateway.js';
import { NO_DEVICE_PORTS, freePort } from './ports.js';

export interface DashboardStack {
  tracker: RunningTracker;
  /** The gateway's base URL, e.g. http://127.0.0.1:43123. */
  url: string;
  /**
   * A second gateway that trusts one proxy hop in front of it (X-Forwarded-For / -Proto), as behind
   * nginx; a browser reaching it shows PUBLIC_BASE_URL (`url`) as its Origin.
   */
  proxiedUrl: string;
  db: TestDatabase;
  close(): Promise<void>;
}

function listen(gateway: Gateway, port = 0): Promise<{ server: Server; url: string }> {
  const server = createServer(gateway.app);
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })));
}

export async function startDashboardStack(settings: Record<string, string> = {}): Promise<DashboardStack> {
  const db = await createTestDatabase('postgres');
  const publicPort = await freePort();
  const ports = { PUBLIC_BASE_URL: `http://127.0.0.1:${publicPort}`, TRACKER_HTTP_PORT: '0', ...NO_DEVICE_PORTS };
  const tracker = await startTracker(parseConfig({ DATABASE_URL: db.url, DATA_DIR: db.dataDir, DEMO: 'false', ...ports, ...settings }), createLogger('tracker', 'silent'));
  const keys = ensureEmbeddedKeys(db.dataDir);
  const gatewayFor = (hops: string) =>
    createGateway({
      config: parseConfig({ TRACKER_URL: `http://127.0.0.1:${tracker.httpPort}`, DATA_DIR: db.dataDir, TRUST_PROXY_HOPS: hops, RATE_LIMIT_PREFIX: uniquePrefix(), RATE_LIMIT_DASHBOARD_PER_MINUTE: '100000', RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000' }),
      logger: createLogger('gateway', 'silent'),
      publicKey: publicKeyFrom(keys.publicKeyPem),
      gatewaySecret: keys.gatewaySecret,
    });
  const gateways = [gatewayFor('0'), gatewayFor('1')];
  const [direct, proxied] = await Promise.all([listen(gateways[0]!, publicPort), listen(gateways[1]!)]);
  return {
    tracker,
    url: direct!.url,
    proxiedUrl: proxied!.url,
    db,
    async close() {
      for (const { server } of [direct!, proxied!]) await new Promise<void>((resolve) => (server.close(() => resolve()), server.closeAllConnections()));
      for (const g of gateways) await g.close();
      await tracker.close();
      await db.drop();
    },
  };
}

export interface Page {
  status: number;
  headers: Headers;
  text: string;
  /** The Location of a redirect, as sent. */
  location: string | null;
}

/** A browser without a browser: keeps cookies, reads the CSRF token of the last page, follows nothing by itself. */
export class FormClient {
  readonly cookies = new Map<string, string>();
  lastPage = '';

  constructor(
    readonly base: string,
    /** Sent as Origin on every POST, as a browser does on our own pages; null sends none. */
    public origin: string | null = base,
  ) {}

  private keep(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const expired = attributes.some((a) => /^\s*expires=Thu, 01 Jan 1970/i.test(a) || /^\s*max-age=0\s*$/i.test(a));
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, pair!.slice(eq + 1).trim());
    }
  }

  private async send(path: string, init: RequestInit & { headers: Record<string, string> }): Promise<Page> {
    if (this.cookies.size > 0) init.headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(new URL(path, this.base), { ...init, redirect: 'manual' });
    this.keep(res);
    const text = await res.text();
    if (res.headers.get('content-type')?.startsWith('text/html')) this.lastPage = text;
    return { status: res.status, headers: res.headers, text, location: res.headers.get('location') };
  }

  get(path: string, headers: Record<string, string> = {}): Promise<Page> {
    return this.send(path, { method: 'GET', headers: { ...headers } });
  }

  /** Posts a form; `_csrf` is taken from the last page unless the fields give one (or null to send none). */
  post(path: string, fields: Record<string, string | string[] | null>, headers: Record<string, string> = {}): Promise<Page> {
    const body = new URLSearchParams();
    const all = { _csrf: this.csrf(), ...fields };
    for (const [k, v] of Object.entries(all)) for (const one of v === null || v === undefined ? [] : [v].flat()) body.append(k, one);
    const h: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', ...headers };
    if (this.origin !== null && !('origin' in h)) h.origin = this.origin;
    return this.send(path, { method: 'POST', headers: h, body: body.toString() });
  }

  /** The CSRF token in the last HTML page, if any. */
  csrf(): string | null {
    return /name="_csrf" value="([^"]+)"/.exec(this.lastPage)?.[1] ?? null;
  }
}

/** Creates an owner for the account and sets the password through the printed link, as a person would. */
export async function createOwner(stack: DashboardStack, accountId: string, email: string, password: string): Promise<void> {
  const { setPasswordUrl } = (await runVerb(stack.tracker.ctx, 'users create', { account: accountId, email })) as { setPasswordUrl: string };
  const link = new URL(setPasswordUrl);
  const client = new FormClient(stack.url);
  await client.get(`${link.pathname}${link.search}`);
  const set = await client.post('/dashboard/set-password', { token: link.searchParams.get('token')!, password, confirm: password, _csrf: null });
  if (set.status !== 303) throw new Error(`setting the password answered ${set.status}: ${set.text.slice(0, 300)}`);
}

/** A client signed in as the owner. */
export async function signIn(stack: DashboardStack, email: string, password: string, base = stack.url): Promise<FormClient> {
  const client = new FormClient(base);
  await client.get('/dashboard/login');
  const res = await client.post('/dashboard/login', { email, password });
  if (res.status !== 303) throw new Error(`sign-in answered ${res.status}: ${res.text.slice(0, 300)}`);
  return client;
}

export const account = async (stack: DashboardStack, name: string) => ((await runVerb(stack.tracker.ctx, 'accounts create', { name })) as { id: string }).id;
