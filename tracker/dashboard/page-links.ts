// Dashboard lists longer than a page: rows are fetched one past the page size, and a link carries
// the API's opaque cursor of the last row shown to the next page.
import { encodeCursor } from '../storage/paging.js';

export interface Paged<T> {
  items: T[];
  /** The next page's URL, or null on the last page. */
  next: string | null;
}

/** `rows` fetched with limit size + 1; `href` makes a page's URL from its cursor. */
export function paged<T>(rows: T[], size: number, cursorOf: (last: T) => Record<string, string | number>, href: (cursor: string) => string): Paged<T> {
  const items = rows.slice(0, size);
  const last = items.at(-1);
  return { items, next: rows.length > size && last !== undefined ? href(encodeCursor(cursorOf(last))) : null };
}
