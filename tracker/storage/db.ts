// One database interface over two engines: the machine's PostgreSQL (pg) when DATABASE_URL is set,
// PGlite (PostgreSQL in WebAssembly, data in DATA_DIR) when it is not. Same SQL, same migrations.

export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
}

export interface Db extends Queryable {
  readonly kind: 'postgres' | 'pglite';
  /** Runs fn in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Runs a multi-statement script (migrations). */
  exec(script: string): Promise<void>;
  /** Runs fn with one connection held for its duration (session-level locks). */
  withSession<T>(fn: (session: Queryable & { exec(script: string): Promise<void> }) => Promise<T>): Promise<T>;
  /**
   * Streams a query's rows in batches through a server-side cursor. On PostgreSQL the cursor lives
   * in a transaction on its own connection, so memory stays constant whatever the result size.
   * Stopping the iteration early closes the cursor.
   */
  cursor<T = Record<string, unknown>>(sql: string, params: unknown[], batchSize: number): AsyncGenerator<T[]>;
  /**
   * Streams a query of one text column as newline-terminated lines, in chunks of any size. On
   * PostgreSQL this is `COPY (…) TO STDOUT`: the fastest way out of the server, in constant memory.
   * COPY takes no bind parameters, so the string parameters are sent as quoted literals, and its
   * text format escapes backslashes, tabs and newlines: the values must contain none.
   */
  copyLines(sql: string, params: string[]): AsyncGenerator<Buffer>;
  /** Calls onPayload for every NOTIFY on the channel, from any process; resolves to an unlisten. */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export interface OpenOptions {
  databaseUrl?: string;
  dataDir: string;
  /** Connections in the pool (PostgreSQL only). */
  poolSize?: number;
}

export async function openDb(options: OpenOptions): Promise<Db> {
  if (options.databaseUrl) {
    const { openPostgres } = await import('./postgres.js');
    return openPostgres(options.databaseUrl, options.poolSize ?? 10);
  }
  const { openPglite } = await import('./pglite.js');
  return openPglite(options.dataDir);
}
