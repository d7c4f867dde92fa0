// Bounds-checked big-endian reader. Running past the end throws Truncated, which each
// decoder catches at its top level: a short frame then yields an empty result instead of
// a crash or a half-filled position.
import { twoDigits } from './text-numbers.js';
import type { DecodeResult, ProtocolState } from './types.js';

export class Truncated extends Error {
  constructor() {
    super('frame truncated');
  }
}

/** One shared instance: short frames are common on bad links and a stack trace per throw is costly. */
export const TRUNCATED = new Truncated();

/** Wraps a frame decoder so a frame cut short yields an empty result instead of an exception. */
export function emptyWhenTruncated(decodeFrame: (frame: Buffer, conn: ProtocolState) => DecodeResult): (frame: Buffer, conn: ProtocolState) => DecodeResult {
  return (frame, conn) => {
    try {
      return decodeFrame(frame, conn);
    } catch (err) {
      if (err instanceof Truncated) return { positions: [] };
      throw err;
    }
  };
}

export class Reader {
  constructor(
    readonly buf: Buffer,
    public pos = 0,
    /** Exclusive end of the readable region (frames keep serial/CRC/trailer after it). */
    public end = buf.length,
  ) {}

  get remaining(): number {
    return this.end - this.pos;
  }

  private take(n: number): number {
    if (n < 0 || this.pos + n > this.end) throw TRUNCATED;
    const at = this.pos;
    this.pos += n;
    return at;
  }

  u8(): number {
    return this.buf[this.take(1)]!;
  }
  u16(): number {
    return this.buf.readUInt16BE(this.take(2));
  }
  u24(): number {
    return this.buf.readUIntBE(this.take(3), 3);
  }
  u32(): number {
    return this.buf.readUInt32BE(this.take(4));
  }
  i16(): number {
    return this.buf.readInt16BE(this.take(2));
  }
  i32(): number {
    return this.buf.readInt32BE(this.take(4));
  }
  u64(): bigint {
    return this.buf.readBigUInt64BE(this.take(8));
  }
  bytes(n: number): Buffer {
    const at = this.take(n);
    return this.buf.subarray(at, at + n);
  }
  /** Passes over n bytes; returns where they start, for reading them in place. */
  skip(n: number): number {
    return this.take(n);
  }
}

/** A Date from calendar fields in UTC, or null when a field is out of range. */
export function utcDate(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
): Date | null {
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) {
    return null;
  }
  const d = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  return Number.isNaN(d.getTime()) ? null : d;
}

/** DDMMYY and HHMMSS, six digits each (the caller checks them), as a UTC time of this century. */
export function ddmmyyHhmmss(date: string, time: string): Date | null {
  return utcDate(2000 + twoDigits(date, 4), twoDigits(date, 2), twoDigits(date, 0), twoDigits(time, 0), twoDigits(time, 2), twoDigits(time, 4));
}

export const KNOTS_TO_KMH = 1.852;
