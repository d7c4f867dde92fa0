// The response headers of every HTML page the tracker serves (the dashboard, the API docs): a
// Content-Security-Policy that lets no inline script or style run, no framing, no MIME sniffing,
// and no use of the pages' resources from other origins.
import type { RequestHandler } from 'express';

const POLICY: Record<string, string> = {
  'default-src': "'none'",
  'script-src': "'self'",
  'style-src': "'self'",
  'img-src': "'self'",
  'form-action': "'self'",
  'frame-ancestors': "'none'",
  'base-uri': "'none'",
};

/** The headers, with the given CSP directives replacing or adding to the strict ones. */
export function pageHeaders(directives: Record<string, string> = {}): RequestHandler {
  const headers = {
    'Content-Security-Policy': Object.entries({ ...POLICY, ...directives })
      .map(([name, sources]) => `${name} ${sources}`)
      .join('; '),
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    // same-origin, not no-referrer: with no-referrer browsers send "Origin: null" on form posts.
    'Referrer-Policy': 'same-origin',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
  };
  return function pageHeaders(_req, res, next) {
    res.set(headers);
    next();
  };
}
