// The error catalogue: every HTTP error the product answers comes from here, so status, code and
// message stay consistent across the gateway and the tracker.

export const catalogue = {
  bad_request: { status: 400, message: 'the request is invalid' },
  unauthorized: { status: 401, message: 'a valid bearer token is required' },
  forbidden: { status: 403, message: 'the token lacks the required scope' },
  not_found: { status: 404, message: 'not found' },
  method_not_allowed: { status: 405, message: 'method not allowed' },
  conflict: { status: 409, message: 'the request conflicts with the resource state' },
  payload_too_large: { status: 413, message: 'the request body is too large' },
  unsupported_media_type: { status: 415, message: 'Content-Type must be application/json' },
  idempotency_key_reused: { status: 422, message: 'this Idempotency-Key was already used with a different request body' },
  rate_limited: { status: 429, message: 'rate limit exceeded' },
  internal: { status: 500, message: 'internal error' },
  backend_unavailable: { status: 502, message: 'tracking backend unavailable' },
  unavailable: { status: 503, message: 'service temporarily unavailable' },
} as const;

export type ErrorCode = keyof typeof catalogue;

export interface ErrorBody {
  error: string;
  code: ErrorCode;
}

/** An error meant for the client: its message is safe to show. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string = catalogue[code].message,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = catalogue[code].status;
  }

  body(): ErrorBody {
    return { error: this.message, code: this.code };
  }
}

export function errorBody(code: ErrorCode, message: string = catalogue[code].message): ErrorBody {
  return { error: message, code };
}
