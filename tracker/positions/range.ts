// How much history one request may ask for: the public API and the dashboard's track page refuse a
// longer range, so a single query never scans more than this many days of positions.
export const MAX_RANGE_DAYS = 90;
/** Without `from`, a history request starts this long before `to`. */
export const DEFAULT_RANGE_HOURS = 24;
