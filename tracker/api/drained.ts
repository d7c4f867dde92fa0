// Backpressure for streamed answers (history, reports): wait until the client takes more.
import type { Response } from 'express';

/** Resolves when the socket takes more data or closes, leaving no listener behind. */
export function drained(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done).off('close', done);
      resolve();
    };
    res.on('drain', done).on('close', done);
  });
}
