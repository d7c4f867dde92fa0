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

/**
 * The body of one page of a keyset listing fetched with `limit + 1` rows (the extra row only says
 * there is more). `nextCursor` is present when the client asked for pages (`paged`) or when the
 * rows went past the default page size; null on the last page.
 */
export function pageBody<R>(rows: R[], limit: number, paged: boolean, present: (row: R) => unknown, cursorOf: (row: R) => Record<string, string | number>) {
  const more = rows.length > limit;
  const page = more ? rows.slice(0, limit) : rows;
  const body: { data: unknown[]; nextCursor?: string | null } = { data: page.map(present) };
  if (paged || more) body.nextCursor = more ? encodeCursor(cursorOf(page.at(-1)!)) : null;
  return body;
}
