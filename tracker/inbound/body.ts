// Reading an inbound call's body: JSON only (415 otherwise), at most 256 KiB (413), a JSON object
// (400), and nothing PostgreSQL could not store as sent (400): too deep a nesting, the character
// U+0000, or a broken UTF-16 surrogate.
import type { Request, Response } from 'express';
import { raw } from 'express';
import { ApiError } from '../../shared/errors.js';
import { INBOUND_MAX_BODY_BYTES } from '../../shared/inbound.js';

const MAX_DEPTH = 32;

/** `application/json`, with no charset or UTF-8 (the only encoding JSON allows between systems). */
export function isJsonType(header: string | undefined): boolean {
  if (!header) return false;
  const [type, ...params] = header.split(';').map((p) => p.trim().toLowerCase());
  if (type !== 'application/json') return false;
  const charset = params.find((p) => p.startsWith('charset='));
  return charset === undefined || /^charset="?utf-8"?$/.test(charset);
}

const parser = raw({ type: () => true, limit: INBOUND_MAX_BODY_BYTES });

/** The raw body (inflated when sent compressed); bodies over the cap are refused before being read. */
export function readBody(req: Request, res: Response): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    parser(req, res, (err?: unknown) => {
      if (err === undefined) return resolve(Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0));
      const type = (err as { type?: string }).type;
      if (type === 'entity.too.large') return reject(new ApiError('payload_too_large', `the request body is larger than ${INBOUND_MAX_BODY_BYTES} bytes`));
      if (type === 'encoding.unsupported') return reject(new ApiError('unsupported_media_type', 'unsupported Content-Encoding'));
      reject(new ApiError('bad_request', 'the request body could not be read'));
    });
  });
}

/** The body as a JSON value, if it is one (refused calls keep it in the log). */
export function parseJson(bytes: Buffer): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(bytes.toString('utf8')) as unknown };
  } catch {
    return { ok: false };
  }
}

/** Checks a parsed body is a JSON object that can be stored as sent. */
export function requireStorableObject(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ApiError('bad_request', 'the body must be a JSON object');
  const why = unstorable(value, 1);
  if (why) throw new ApiError('bad_request', why);
  return value as Record<string, unknown>;
}

export const isStorable = (value: unknown): boolean => unstorable(value, 1) === null;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function badText(s: string): string | null {
  if (s.includes('\u0000')) return 'the body must not contain the character U+0000';
  if (LONE_SURROGATE.test(s)) return 'the body contains an unpaired UTF-16 surrogate (\\ud800-\\udfff)';
  return null;
}

function unstorable(value: unknown, depth: number): string | null {
  if (typeof value === 'string') return badText(value);
  if (typeof value !== 'object' || value === null) return null;
  if (depth > MAX_DEPTH) return `the body is nested more than ${MAX_DEPTH} levels deep`;
  const isArray = Array.isArray(value);
  for (const [k, v] of Object.entries(value)) {
    const why = (isArray ? null : badText(k)) ?? unstorable(v, depth + 1);
    if (why) return why;
  }
  return null;
}
