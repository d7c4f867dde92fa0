// The trackers behind the gateway (TRACKER_URL, one URL or a comma-separated list) with passive
// health: requests go round robin over the trackers that answered last time; one that refused,
// reset or timed out is skipped for DOWN_MS, then given real traffic again. No probes: the traffic
// itself is the check. Trackers all marked down are still tried, those back soonest first, so only
// when none answers does a client get 502.

/** How long a tracker that failed is passed over while another is live. */
export const DOWN_MS = 5000;

export interface Upstream {
  /** host:port, the name in logs and metrics (never a user name or password). */
  label: string;
  hostname: string;
  port: string;
  /** Until when this tracker is passed over (epoch ms); 0 while live. */
  downUntil: number;
  /** Requests this tracker failed since start: read by the metrics at scrape time. */
  failures: number;
}

export interface Upstreams {
  readonly list: readonly Upstream[];
  /**
   * The tracker to try next, never one in `tried`: the next live one in turn, else the one marked
   * down that is back soonest; undefined once every tracker was tried.
   */
  pick(tried?: readonly Upstream[]): Upstream | undefined;
  /** The tracker refused, reset or timed out: pass it over for DOWN_MS. */
  failed(upstream: Upstream): void;
  /** The tracker answered: it is live again at once. */
  answered(upstream: Upstream): void;
}

/** Errors that say the tracker (or the way to it) is gone, as opposed to the client going away. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE', 'UPSTREAM_TIMEOUT']);

export function isUnreachable(err: Error & { code?: string }): boolean {
  return err.code !== undefined && UNREACHABLE.has(err.code);
}

export function trackerUpstreams(urls: readonly string[], now: () => number = Date.now): Upstreams {
  if (urls.length === 0) throw new Error('upstreams: at least one tracker URL is required');
  const list: Upstream[] = urls.map((text) => {
    const url = new URL(text);
    if (url.protocol !== 'http:') throw new Error('upstreams: tracker URLs must be http:// URLs');
    const port = url.port || '80';
    return { label: `${url.hostname}:${port}`, hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'), port, downUntil: 0, failures: 0 };
  });
  let turn = 0;

  function pick(tried: readonly Upstream[] = []): Upstream | undefined {
    const t = now();
    for (let i = 0; i < list.length; i++) {
      const u = list[(turn + i) % list.length]!;
      if (u.downUntil <= t && !tried.includes(u)) {
        turn = (turn + i + 1) % list.length;
        return u;
      }
    }
    let soonest: Upstream | undefined;
    for (const u of list) if (!tried.includes(u) && (!soonest || u.downUntil < soonest.downUntil)) soonest = u;
    return soonest;
  }

  return {
    list,
    pick,
    failed(u) {
      u.failures++;
      u.downUntil = now() + DOWN_MS;
    },
    answered(u) {
      if (u.downUntil !== 0) u.downUntil = 0;
    },
  };
}
