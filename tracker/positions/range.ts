// How much history one request may ask for: the public API and the dashboard's track page refuse a
// longer range, so a single query never scans more than this many days of positions.
import { ApiError } from '../../shared/errors.js';

export const MAX_RANGE_DAYS = 90;
/** Without `from`, a history request starts this long before `to`. */
export const DEFAULT_RANGE_HOURS = 24;

/** A 400 for a range that ends before it starts or spans more than MAX_RANGE_DAYS. */
export function checkRange(from: Date, to: Date): void {
  if (from > to) throw new ApiError('bad_request', '"from" must not be later than "to"');
  if (to.getTime() - from.getTime() > MAX_RANGE_DAYS * 86_400_000) {
    throw new ApiError('bad_request', `the range from "from" to "to" may span at most ${MAX_RANGE_DAYS} days`);
  }
}
