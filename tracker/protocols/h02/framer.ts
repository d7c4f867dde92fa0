// H02 framing. Text messages run from '*' to '#'; binary messages start with '$' and have a
// fixed length: 32 bytes, 42 on models with a 15-digit id, or 45 on models with the extended
// record. The length cannot be read from the message, so the first binary message of a
// connection decides it: the candidate that ends the read exactly or is followed by another
// start marker. Some units also send 32-byte binary messages starting with 'X'; they are framed so
// the stream stays in step.
import { ScanningFramer } from '../scanning-framer.js';

const SHORT = 32;
const LONG_ID = 42;
const LONG = 45;
const STAR = 0x2a;
const HASH = 0x23;
const DOLLAR = 0x24;
const X = 0x58;

export class H02Framer extends ScanningFramer {
  private binaryLength = 0;

  protected override isFiller(byte: number): boolean {
    return byte === 0x0d || byte === 0x0a;
  }

  protected frameSize(pos: number): number {
    const c = this.buf[pos];
    if (c === STAR) return this.textSize(pos);
    if (c === X) return this.buf.length - pos >= SHORT ? SHORT : 0;
    return c === DOLLAR ? this.binarySize(pos) : -1;
  }

  private textSize(pos: number): number {
    const limit = Math.min(this.buf.length, pos + this.maxFrameBytes);
    const end = this.buf.indexOf(HASH, pos + 1);
    if (end >= 0 && end < limit) {
      // A new '*' before the '#' means the earlier message was cut off: resync there.
      const restart = this.buf.indexOf(STAR, pos + 1);
      return restart >= 0 && restart < end ? -1 : end + 1 - pos;
    }
    return this.buf.length - pos >= this.maxFrameBytes ? -1 : 0;
  }

  private binarySize(pos: number): number {
    if (!this.binaryLength) this.binaryLength = this.guessBinaryLength(pos);
    if (!this.binaryLength) return 0;
    if (this.binaryLength > this.maxFrameBytes) return -1;
    return this.buf.length - pos >= this.binaryLength ? this.binaryLength : 0;
  }

  /** 32, 42 or 45 from where the next message starts; 0 while that cannot be told yet. */
  private guessBinaryLength(pos: number): number {
    const avail = this.buf.length - pos;
    const isStart = (at: number) => this.buf[at] === DOLLAR || this.buf[at] === STAR || this.buf[at] === X;
    for (const length of [SHORT, LONG_ID, LONG]) {
      if (avail === length || (avail > length && isStart(pos + length))) return length;
    }
    return avail > LONG ? SHORT : 0;
  }
}
