// Writes `{"data":[…]}` from batches of rows as they come, respecting the socket's backpressure,
// so a response of millions of rows needs no more memory than one batch.
import type { Response } from 'express';

export async function streamData<T>(res: Response, batches: AsyncIterable<T[]>, toJson: (row: T) => string, tail = ''): Promise<void> {
  res.status(200).type('application/json');
  let first = true;
  let chunk = '{"data":[';
  for await (const batch of batches) {
    if (res.destroyed) return; // the client went away: leaving the loop closes the cursor
    for (const row of batch) {
      chunk += first ? toJson(row) : `,${toJson(row)}`;
      first = false;
    }
    if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve).once('close', resolve));
    chunk = '';
  }
  res.end(`${chunk}]${tail}}`);
}
