// When a failed delivery is tried again: the configured backoff (WEBHOOK_RETRY_SCHEDULE), never
// sooner than the receiver's Retry-After, and not at all once the schedule is used up.

/** The longest Retry-After obeyed; a receiver asking for more is tried again after a day. */
export const MAX_RETRY_AFTER_MS = 86_400_000;

/** Retry-After in seconds or as an HTTP date, in milliseconds from now; null when absent or invalid. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Math.min(Number(text) * 1000, MAX_RETRY_AFTER_MS);
  const at = Date.parse(text);
  if (Number.isNaN(at) || !/[a-z]/i.test(text)) return null;
  return Math.min(Math.max(at - now, 0), MAX_RETRY_AFTER_MS);
}

/**
 * Milliseconds until the next attempt after `attempts` attempts have failed, or null when the
 * delivery is given up (the schedule has one delay per retry).
 */
export function retryDelay(schedule: readonly number[], attempts: number, retryAfterMs: number | null): number | null {
  if (attempts < 1 || attempts > schedule.length) return null;
  const backoff = schedule[attempts - 1]!;
  return retryAfterMs === null ? backoff : Math.max(backoff, retryAfterMs);
}
