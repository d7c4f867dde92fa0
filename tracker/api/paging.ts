// Opaque page cursors: base64url of a small JSON object, checked on the way back in.
import { ApiError } from '../../shared/errors.js';

export function encodeCursor(value: Record<string, string | number>): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

export function decodeCursor<T extends Record<string, unknown>>(cursor: string, valid: (v: Record<string, unknown>) => v is T): T {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (typeof value === 'object' && value !== null && valid(value as Record<string, unknown>)) return value as T;
  } catch {
    // falls through to the 400
  }
  throw new ApiError('bad_request', 'invalid query parameter "cursor": not a cursor this API returned');
}

export const isIsoTime = (v: unknown): v is string => typeof v === 'string' && !Number.isNaN(Date.parse(v));
