// Structured JSON logs (pino). Secrets never reach a log line: credentials are redacted by path,
// and any `secret=`/`token=` value in a logged URL is masked.
import { unescape } from 'node:querystring';
import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';

// Names are matched as the server decodes them (`sec%72et`, `Secret`, `+` for a space), so a
// parameter the server would read as the secret is masked however the client spelled it.
const SECRET_NAME = /secret|token|password/i;
// Only a percent-escape can hide those letters: a query with neither is left as it is, cheaply.
const MAYBE_SECRET = /secret|token|password|%/i;

/** Masks the values of secret-bearing query parameters in a URL or path. */
export function maskUrl(url: string): string {
  const q = url.indexOf('?');
  if (q === -1 || !MAYBE_SECRET.test(url.slice(q + 1))) return url;
  const pairs = url.slice(q + 1).split('&');
  let masked = false;
  for (let i = 0; i < pairs.length; i++) {
    const pair = pairs[i]!;
    const eq = pair.indexOf('=');
    if (eq === -1) continue;
    const name = pair.slice(0, eq);
    if (!SECRET_NAME.test(name.includes('%') ? unescape(name.replaceAll('+', ' ')) : name)) continue;
    pairs[i] = `${name}=[redacted]`;
    masked = true;
  }
  return masked ? `${url.slice(0, q + 1)}${pairs.join('&')}` : url;
}

export const redactPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-gateway-secret"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  '*.password',
  '*.secret',
  '*.token',
  'password',
  'secret',
  'token',
];

export function createLogger(service: string, level: string, destination?: DestinationStream): Logger {
  const options: LoggerOptions = {
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: redactPaths, censor: '[redacted]' },
    formatters: { level: (label) => ({ level: label }) },
  };
  return destination ? pino(options, destination) : pino(options);
}

export type { Logger };
