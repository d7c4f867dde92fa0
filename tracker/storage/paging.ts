// Keyset pages of lists, for every edge that lists (public API, dashboard): the query fields that
// ask for a page, and opaque page cursors: base64url of a small JSON object, checked on the way
// back in against the exact form the API writes, so nothing but a cursor it handed out reaches a query.
import { z } from 'zod';
import { ApiError } from '../../shared/errors.js';

export const MAX_PAGE = 10_000;

/** The query fields of a paged list. */
export const paging = {
  limit: z.coerce.number().int().min(1).max(MAX_PAGE).optional().meta({ description: `Page size, 1 to ${MAX_PAGE}; without it every matching row is returned` }),
  cursor: z.string().max(200).optional().meta({ description: 'Opaque cursor from a previous page' }),
};

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

const CURSOR_TIME = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.\d{1,6})?Z$/;

const daysIn = (year: number, month: number) =>
  month === 2 ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;

/** A time as cursors carry it: UTC ISO 8601, years 0001 to 9999, to the microsecond at most, a real calendar date. */
export function isCursorTime(v: unknown): v is string {
  const m = typeof v === 'string' ? CURSOR_TIME.exec(v) : null;
  if (!m) return false;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  return year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month) && hour < 24 && minute < 60 && second < 60;
}

/** Row ids that are database integers (bigint), never past what a JavaScript number holds exactly. */
const isRowNumber = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) > 0;

/** Row ids that are text (dev_…, geo_…): the characters newId writes. */
const isRowId = (v: unknown): v is string => typeof v === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(v);

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
  const { t, id } = decodeCursor(cursor, (v): v is { t: string; id: string } => isCursorTime(v.t) && isRowId(v.id));
  return { createdAt: new Date(t), id };
}

export const createdCursorOf = (row: { createdAt: Date; id: string }) => ({ t: row.createdAt.toISOString(), id: row.id });

/** Keyset of lists ordered by id alone (devices). */
export function decodeIdCursor(cursor: string | undefined): string | null {
  if (!cursor) return null;
  return decodeCursor(cursor, (v): v is { id: string } => isRowId(v.id)).id;
}

export const idCursorOf = (row: { id: string }) => ({ id: row.id });

/** Keyset of lists ordered newest first by (createdAt, numeric id): alerts, events. */
export function decodeNumberedCursor(cursor: string | undefined): { createdAt: Date; id: number } | null {
  if (!cursor) return null;
  const { t, id } = decodeCursor(cursor, (v): v is { t: string; id: number } => isCursorTime(v.t) && isRowNumber(v.id));
  return { createdAt: new Date(t), id };
}
