// Checking an outbound webhook URL when it is configured, so the operator hears at once what delivery would
// refuse anyway (the connect-time checks in ssrf.ts stay the guard).
import { isIP } from 'node:net';
import { ApiError } from '../../shared/errors.js';
import { bareHost, guardedLookup, isForbiddenAddress } from './ssrf.js';

export const MAX_URL_LENGTH = 2048;

export interface TargetSettings {
  allowHttp: boolean;
  allowPrivate: boolean;
}

const resolves = (host: string) =>
  new Promise<Error | null>((resolve) => guardedLookup(host, { all: true }, (err) => resolve(err && (err as { code?: string }).code === 'EFORBIDDENADDRESS' ? err : null)));

/** The URL, normalised, or a bad_request naming what is wrong with it. */
export async function checkWebhookUrl(raw: string, settings: TargetSettings): Promise<string> {
  const bad = (why: string) => new ApiError('bad_request', `url ${why}`);
  if (raw.length > MAX_URL_LENGTH) throw bad(`must be at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw bad('must be an absolute URL such as https://example.com/hooks/fleet');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && settings.allowHttp)) {
    throw bad(url.protocol === 'http:' ? 'must use https (plain http only with WEBHOOK_ALLOW_HTTP=true, for development)' : 'must use https');
  }
  if (!settings.allowPrivate) {
    const host = bareHost(url);
    if (isIP(host)) {
      if (isForbiddenAddress(host)) throw bad(`points at ${host}, a private, loopback, link-local or metadata address`);
    } else {
      // A name that does not resolve now is accepted: it may later, and delivery checks again.
      const forbidden = await resolves(host);
      if (forbidden) throw bad(`host ${forbidden.message}`);
    }
  }
  return url.href;
}
