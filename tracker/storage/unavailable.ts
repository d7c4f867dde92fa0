// Database unavailability (PostgreSQL down, restarting, unreachable) as an HTTP answer: 503 with
// Retry-After at once, for the API and the dashboard alike; the request did nothing wrong and a retry may succeed.
import type { ErrorRequestHandler } from 'express';
import { isDatabaseUnavailable } from '../../shared/db-errors.js';
import { ApiError } from '../../shared/errors.js';

/** Seconds a client is asked to wait: about the time a database restart or failover takes. */
const RETRY_AFTER_SECONDS = '5';
const UNAVAILABLE = new ApiError('unavailable', 'the database is unavailable; try again shortly', { 'Retry-After': RETRY_AFTER_SECONDS });

/** Turns a database-unavailable error into the catalogue's 503 for the error handler after it. */
export function databaseUnavailable(): ErrorRequestHandler {
  return function databaseUnavailable(err, req, _res, next) {
    if (!isDatabaseUnavailable(err)) return next(err);
    req.log.warn({ error: (err as Error).message }, 'database unavailable');
    next(UNAVAILABLE);
  };
}
