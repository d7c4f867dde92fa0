// Runs an operator command through a running tracker's internal endpoint.
import type { Config } from '../../shared/config.js';
import { ApiError, type ErrorCode } from '../../shared/errors.js';
import { INTERNAL_HEADERS } from '../../shared/internal.js';
import { loadTrackerKeys } from '../boot.js';

export type RemoteResult = { reached: true; result: unknown } | { reached: false };

const NOT_RUNNING = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH']);

/** No tracker is listening (localhost may fail on ::1 and 127.0.0.1 at once: an AggregateError). */
function refused(err: unknown): boolean {
  const cause = (err as { cause?: { code?: string; errors?: { code?: string }[] } }).cause;
  const codes = [cause?.code, ...(cause?.errors ?? []).map((e) => e.code)];
  return codes.some((c) => c !== undefined && NOT_RUNNING.has(c));
}

export async function callTracker(config: Config, command: string, args: Record<string, unknown>): Promise<RemoteResult> {
  const { gatewaySecret } = loadTrackerKeys(config);
  let res: Response;
  try {
    res = await fetch(new URL('/internal/admin', config.TRACKER_URL), {
      method: 'POST',
      headers: { 'content-type': 'application/json', [INTERNAL_HEADERS.secret]: gatewaySecret },
      body: JSON.stringify({ command, args }),
      // At least 30 s: `webhooks test` waits for the receiver, up to its 15 s timeout.
      signal: AbortSignal.timeout(Math.max(config.UPSTREAM_TIMEOUT_MS, 30_000)),
    });
  } catch (err) {
    if (refused(err)) return { reached: false };
    throw err;
  }
  const body = (await res.json()) as { error?: string; code?: ErrorCode };
  if (!res.ok) throw new ApiError(body.code ?? 'internal', body.error ?? `tracker answered ${res.status}`);
  return { reached: true, result: body };
}
