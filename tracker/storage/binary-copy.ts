// `COPY (query) TO STDOUT WITH (FORMAT binary)`: the cheapest way for PostgreSQL to hand over many
// rows (no text rendering of numbers or times). On a node-postgres connection the COPY is read straight
// off the socket: the protocol framing is stripped in one pass over each chunk, and what comes out is
// buffers of whole tuples in PostgreSQL's binary COPY layout (per tuple: int16 field count, then per
// field an int32 length, -1 for NULL, and the bytes), without the file header or trailer.
import { Readable } from 'node:stream';
import pg from 'pg';

/** COPY takes no bind parameters: `$n` become quoted literals (the values are validated before). */
export function inlineParams(sql: string, params: string[]): string {
  return sql.replace(/\$(\d+)/g, (_, n: string) => pg.escapeLiteral(params[Number(n) - 1]!));
}

/** The COPY statement; PGlite takes `'/dev/blob'` for a destination and returns the file whole. */
export const binaryCopySql = (query: string, to: 'STDOUT' | "'/dev/blob'" = 'STDOUT'): string => `COPY (${query}) TO ${to} WITH (FORMAT binary)`;

const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
/** Signature, int32 flags, int32 header-extension length. */
const HEADER = SIGNATURE.length + 8;
const TRAILER = 2; // int16 -1

/** Bytes of the file header at the start of a binary COPY stream (throws if it is not one). */
export function headerLength(data: Buffer, at = 0): number {
  if (data.length < at + HEADER || !data.subarray(at, at + SIGNATURE.length).equals(SIGNATURE)) throw new Error('not a binary COPY stream');
  return HEADER + data.readInt32BE(at + HEADER - 4);
}

/** The tuples of a whole binary COPY file (as PGlite hands it over). */
export function tuplesOfFile(file: Buffer): Buffer {
  return file.subarray(headerLength(file), file.length - TRAILER);
}

const COPY_DATA = 0x64; // 'd'
const COPY_DONE = 0x63; // 'c'
const ERROR_RESPONSE = 0x45; // 'E'

/**
 * A node-postgres "submittable" (pass it to client.query) that is also the Readable of the COPY's
 * tuples. While the COPY runs it takes the socket from node-postgres and reads only as fast as it is
 * read, so a slow client holds PostgreSQL back instead of filling memory; at CopyDone, or at an
 * error, it hands the socket and the bytes after back to node-postgres.
 */
export class BinaryCopyOut extends Readable implements pg.Submittable {
  private connection: pg.Connection | null = null;
  private pgOnData: ((b: Buffer) => void) | null = null;
  private pending: Buffer | null = null;
  private headerSeen = false;
  private reading = false;
  private detached = false;
  private readonly onReadable = (): void => this.pump();

  constructor(private readonly text: string) {
    super();
  }

  submit(connection: pg.Connection): void {
    this.connection = connection;
    const stream = connection.stream;
    this.pgOnData = stream.listeners('data')[0] as (b: Buffer) => void;
    stream.removeListener('data', this.pgOnData);
    stream.pause();
    stream.on('readable', this.onReadable);
    connection.query(this.text);
  }

  override _read(): void {
    this.reading = true;
    this.pump();
  }

  // Called by node-postgres once it has the socket back.
  handleError(err: Error): void {
    this.destroy(err);
  }
  handleCommandComplete(): void {}
  handleReadyForQuery(): void {}

  private pump(): void {
    let chunk: Buffer | null;
    try {
      while (this.reading && !this.detached && this.connection && (chunk = this.connection.stream.read() as Buffer | null) !== null) this.parse(chunk);
    } catch (err) {
      // Not a binary COPY after all: the connection is past saving, and its owner closes it.
      this.detached = true;
      this.destroy(err as Error);
    }
  }

  /**
   * Strips the framing in place: each CopyData payload is moved down over the message headers before
   * it (copyWithin, a memmove), so the chunk itself becomes the tuples.
   */
  private parse(chunk: Buffer): void {
    const data = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = null;
    let at = 0;
    let tuples = 0;
    while (at + 5 <= data.length) {
      const type = data[at]!;
      const end = at + 1 + data.readInt32BE(at + 1);
      if (type === ERROR_RESPONSE) return this.finish(data.subarray(0, tuples), data.subarray(at), false);
      if (end > data.length) break;
      if (type === COPY_DATA) {
        let start = at + 5;
        if (!this.headerSeen) {
          start += headerLength(data, start);
          this.headerSeen = true;
        }
        // The trailer, a field count of -1, ends the data.
        if (!(end - start === TRAILER && data.readInt16BE(start) === -1)) {
          data.copyWithin(tuples, start, end);
          tuples += end - start;
        }
      } else if (type === COPY_DONE) return this.finish(data.subarray(0, tuples), data.subarray(end), true);
      // CopyOutResponse, and notices or parameter changes interleaved, carry nothing for us.
      at = end;
    }
    if (at < data.length) this.pending = data.subarray(at);
    if (tuples > 0) this.reading = this.push(data.subarray(0, tuples));
  }

  private finish(tuples: Buffer, rest: Buffer, done: boolean): void {
    if (tuples.length > 0) this.push(tuples);
    this.detached = true;
    const stream = this.connection!.stream;
    stream.removeListener('readable', this.onReadable);
    stream.on('data', this.pgOnData!);
    if (rest.length > 0) this.pgOnData!(rest);
    process.nextTick(() => stream.resume());
    if (done) this.push(null);
  }
}
