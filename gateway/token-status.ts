// Whether a token is still active, asked of the tracker (GET /internal/tokens/:id) and trusted for
// a short time: revocation reaches every replica within the cache time plus one round trip. An answer
// holds for the (token id, account) pair it was given for, never for the id alone. A tracker that
// cannot be reached is passed over for the next, as for forwarded requests.
import http from 'node:http';
import { ApiError } from '../shared/errors.js';
import { INTERNAL_HEADERS } from '../shared/internal.js';
import { isUnreachable, type Upstream, type Upstreams } from './upstreams.js';

export interface TokenStatusOptions {
  upstreams: Upstreams;
  gatewaySecret: string;
  agent: http.Agent;
  /** How long an answer is trusted (at most 1000 ms, the revocation promise). */
  cacheMs: number;
  timeoutMs: number;
  maxEntries: number;
}

interface Entry {
  active: boolean;
  at: number;
  pending: Promise<boolean> | null;
}

/**
 * Whether the tracker knows the token as active for that account. Answered synchronously while the
 * cached answer is fresh (the common case costs no promise), else once the tracker has replied.
 */
export type TokenStatus = (tokenId: string, accountId: string) => boolean | Promise<boolean>;

/** The tracker's Retry-After when it is a plain number of seconds, else one second. */
function retryAfterOf(res: http.IncomingMessage): string {
  const given = res.headers['retry-after'];
  return typeof given === 'string' && /^[1-9][0-9]{0,4}$/.test(given) ? given : '1';
}

export function tokenStatus(opts: TokenStatusOptions): TokenStatus {
  if (!(opts.cacheMs >= 0 && opts.cacheMs <= 1000)) throw new Error('tokenStatus: cacheMs must be within 0..1000');
  if (!(opts.maxEntries >= 1)) throw new Error('tokenStatus: maxEntries must be at least 1');
  const entries = new Map<string, Entry>();
  // A token id seen under another account is another entry: the answer for one says nothing of the other.
  const keyOf = (tokenId: string, accountId: string) => `${tokenId} ${accountId}`;
  // Past half its life an answer is still used, but refreshed in the background, so a busy token
  // never waits for the tracker while a quiet one is never trusted longer than cacheMs.
  const refreshAfter = opts.cacheMs / 2;

  function ask(tokenId: string, accountId: string, tried: Upstream[] = []): Promise<boolean> {
    const upstream = opts.upstreams.pick(tried)!;
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          hostname: upstream.hostname,
          port: upstream.port,
          path: `/internal/tokens/${encodeURIComponent(tokenId)}`,
          method: 'GET',
          agent: opts.agent,
          headers: { [INTERNAL_HEADERS.secret]: opts.gatewaySecret, accept: 'application/json' },
          timeout: opts.timeoutMs,
        },
        (res) => {
          opts.upstreams.answered(upstream);
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => {
            // The tracker is up but cannot answer for now (its database is away): the client is told to
            // retry, not that the backend is gone.
            if (res.statusCode === 503) return reject(new ApiError('unavailable', undefined, { 'Retry-After': retryAfterOf(res) }));
            if (res.statusCode !== 200) return reject(new ApiError('backend_unavailable'));
            try {
              const body = JSON.parse(text) as { active?: unknown; accountId?: unknown };
              resolve(body.active === true && body.accountId === accountId);
            } catch {
              reject(new ApiError('backend_unavailable'));
            }
          });
          res.on('error', () => reject(new ApiError('backend_unavailable')));
        },
      );
      req.on('timeout', () => req.destroy(Object.assign(new Error('upstream timeout'), { code: 'UPSTREAM_TIMEOUT' })));
      req.on('error', (err) => {
        if (!isUnreachable(err)) return reject(new ApiError('backend_unavailable'));
        opts.upstreams.failed(upstream);
        const next = [...tried, upstream];
        if (next.length < opts.upstreams.list.length) resolve(ask(tokenId, accountId, next));
        else reject(new ApiError('backend_unavailable'));
      });
      req.end();
    });
  }

  function refresh(tokenId: string, accountId: string, key: string, entry: Entry | undefined): Promise<boolean> {
    if (entry?.pending) return entry.pending;
    const pending = ask(tokenId, accountId).then(
      (active) => {
        entries.delete(key); // re-insert: the map's order is the eviction order
        remember(key, { active, at: Date.now(), pending: null });
        return active;
      },
      (err: unknown) => {
        const current = entries.get(key);
        if (current) current.pending = null;
        throw err;
      },
    );
    if (entry) entry.pending = pending;
    else remember(key, { active: false, at: 0, pending });
    return pending;
  }

  function remember(key: string, entry: Entry): void {
    entries.set(key, entry);
    if (entries.size > opts.maxEntries) entries.delete(entries.keys().next().value!);
  }

  return function isActive(tokenId, accountId) {
    const key = keyOf(tokenId, accountId);
    const entry = entries.get(key);
    const age = entry ? Date.now() - entry.at : Infinity;
    if (age < opts.cacheMs) {
      if (age >= refreshAfter && !entry!.pending) refresh(tokenId, accountId, key, entry).catch(() => undefined);
      return entry!.active;
    }
    return refresh(tokenId, accountId, key, entry);
  };
}
