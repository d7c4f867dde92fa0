// Structured JSON logs (pino). Secrets never reach a log line: credentials are redacted by path,
// and any `secret=`/`token=` value in a logged URL is masked.
import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';

const SECRET_PARAM = /([?&](?:secret|token|access_token|password)=)[^&#\s]*/gi;

/** Masks secret-bearing query parameters in a URL or path. */
export function maskUrl(url: string): string {
  return url.replace(SECRET_PARAM, '$1[redacted]');
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
