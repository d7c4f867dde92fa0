// What the gateway tells the dashboard about the browser: its address and whether it came over
// TLS (worked out by the gateway behind its trusted proxy hops), and the cookies it sent.
import type { Request } from 'express';
import { INTERNAL_HEADERS } from '../../shared/internal.js';

export function clientAddress(req: Request): string {
  const stated = req.headers[INTERNAL_HEADERS.clientAddress];
  return typeof stated === 'string' && stated !== '' ? stated : 'unknown';
}

export function overTls(req: Request): boolean {
  return req.headers[INTERNAL_HEADERS.clientProto] === 'https';
}

export function cookie(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
