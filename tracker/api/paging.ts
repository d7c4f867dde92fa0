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

/** Without `limit`, lists answer at most this many rows (with `nextCursor` when there are more). */
export const DEFAULT_LIST_LIMIT = 1000;

/**
 * The body for rows fetched with limit + 1: the page, and `nextCursor` when the caller gave a
 * limit (null on the last page) or when more rows remain.
 */
export function pageBody<T>(rows: T[], limit: number, limitGiven: boolean, cursorOf: (last: T) => Record<string, string | number>, present: (row: T) => unknown) {
  const more = rows.length > limit;
  const page = more ? rows.slice(0, limit) : rows;
  const last = page.at(-1);
  const body: { data: unknown[]; nextCursor?: string | null } = { data: page.map(present) };
  if (limitGiven || more) body.nextCursor = more && last !== undefined ? encodeCursor(cursorOf(last)) : null;
  return body;
}

/** Keyset of lists ordered by creation: (createdAt, id). */
export function decodeCreatedCursor(cursor: string | undefined): { createdAt: Date; id: string } | null {
  if (!cursor) return null;
  const { t, id } = decodeCursor(cursor, (v): v is { t: string; id: string } => isIsoTime(v.t) && typeof v.id === 'string' && v.id.length <= 64);
  return { createdAt: new Date(t), id };
}

export const createdCursorOf = (row: { createdAt: Date; id: string }) => ({ t: row.createdAt.toISOString(), id: row.id });

/** Keyset of lists ordered newest first by (createdAt, numeric id): alerts, events. */
export function decodeNumberedCursor(cursor: string | undefined): { createdAt: Date; id: number } | null {
  if (!cursor) return null;
  const { t, id } = decodeCursor(cursor, (v): v is { t: string; id: number } => isIsoTime(v.t) && Number.isInteger(v.id));
  return { createdAt: new Date(t), id };
}
