// Runs an operator command through a running tracker's internal endpoint.
import type { Config } from '../../shared/config.js';
import { ApiError, type ErrorCode } from '../../shared/errors.js';
import { INTERNAL_HEADERS } from '../../shared/internal.js';
import { loadTrackerKeys } from '../boot.js';

export type RemoteResult = { reached: true; result: unknown } | { reached: false };

function refused(err: unknown): boolean {
  const code = (err as { cause?: { code?: string } }).cause?.code;
  return code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EHOSTUNREACH';
}

export async function callTracker(config: Config, command: string, args: Record<string, unknown>): Promise<RemoteResult> {
  const { gatewaySecret } = loadTrackerKeys(config);
  let res: Response;
  try {
    res = await fetch(new URL('/internal/admin', config.TRACKER_URL), {
      method: 'POST',
      headers: { 'content-type': 'application/json', [INTERNAL_HEADERS.secret]: gatewaySecret },
      body: JSON.stringify({ command, args }),
      signal: AbortSignal.timeout(config.UPSTREAM_TIMEOUT_MS),
    });
  } catch (err) {
    if (refused(err)) return { reached: false };
    throw err;
  }
  const body = (await res.json()) as { error?: string; code?: ErrorCode };
  if (!res.ok) throw new ApiError(body.code ?? 'internal', body.error ?? `tracker answered ${res.status}`);
  return { reached: true, result: body };
}
