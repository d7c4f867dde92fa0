// PostgreSQL error codes we turn into client errors (both pg and PGlite expose `code`).
export function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === '23505';
}

export function isForeignKeyViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === '23503';
}

// SQLSTATE classes and codes that say the server cannot be used right now, not that the query is wrong:
// 08 connection exception, 53300 too many connections, 57P01-57P03 shutting down or starting up.
const UNAVAILABLE_STATES = /^(08...|53300|57P0[123])$/;
const UNAVAILABLE_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
// node-postgres reports a lost or timed-out connection by message alone.
const UNAVAILABLE_MESSAGES = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed)/;

/** The database is unreachable or refusing work for now (an outage, a restart, a full pool), so a retry may succeed. */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code, message, errors } = err as { code?: unknown; message?: unknown; errors?: unknown };
  if (typeof code === 'string' && (UNAVAILABLE_STATES.test(code) || UNAVAILABLE_ERRNOS.has(code))) return true;
  if (typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message)) return true;
  // Connecting to a name with several addresses fails with one error per address.
  return Array.isArray(errors) && errors.length > 0 && errors.every(isDatabaseUnavailable);
}
