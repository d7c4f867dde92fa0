// One database interface over two engines: the machine's PostgreSQL (pg) when DATABASE_URL is set,
// PGlite (PostgreSQL in WebAssembly, data in DATA_DIR) when it is not. Same SQL, same migrations;
// open.ts picks the engine.

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
   * Runs `COPY (sql) TO STDOUT WITH (FORMAT binary)` and yields buffers of whole tuples in PostgreSQL's
   * binary COPY layout, without the file header and trailer (see binary-copy.ts). On PostgreSQL they
   * stream off the connection as fast as they are read, in constant memory; stopping early closes the
   * connection. PGlite hands the whole COPY over at once, so callers keep each COPY to a bounded batch.
   * COPY takes no bind parameters: the string parameters go in as quoted literals.
   */
  copyBinary(sql: string, params: string[]): AsyncGenerator<Buffer>;
  /**
   * Calls onPayload for every NOTIFY on the channel, from any process; resolves to an unlisten.
   * onResumed is called once listening again after a lost connection: what was sent meanwhile is lost.
   */
  listen(channel: string, onPayload: (payload: string) => void, onResumed?: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}
