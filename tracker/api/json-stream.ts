// Writes `{"data":[…]}` from newline-terminated JSON lines as they come out of the database,
// respecting the socket's backpressure, so a response of millions of rows needs no more memory
// than one chunk. The bytes pass through untouched but for each line's newline becoming a comma.
import type { Response } from 'express';

const NEWLINE = 0x0a;
const COMMA = 0x2c;

export async function streamLines(res: Response, chunks: AsyncIterable<Buffer>): Promise<void> {
  res.status(200).type('application/json');
  res.write('{"data":[');
  // The newline ending the previous chunk becomes a comma only if another line follows it.
  let separator = false;
  for await (const chunk of chunks) {
    if (res.destroyed) return; // the client went away: leaving the loop ends the query
    if (chunk.length === 0) continue;
    for (let i = chunk.indexOf(NEWLINE); i !== -1; i = chunk.indexOf(NEWLINE, i + 1)) chunk[i] = COMMA;
    const body = chunk[chunk.length - 1] === COMMA ? chunk.subarray(0, -1) : chunk;
    if (separator) res.write(',');
    separator = body !== chunk;
    if (!res.write(body)) await drained(res);
  }
  res.end(']}');
}

/** Resolves when the socket takes more data or closes, leaving no listener behind. */
function drained(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done).off('close', done);
      resolve();
    };
    res.on('drain', done).on('close', done);
  });
}
