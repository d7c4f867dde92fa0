// TK103 framing: "(" … ")". A command answer may quote the unit's free text between '$' signs,
// and that text can hold ')' itself: a ')' closes the frame only after an even number of '$'.
// Anything before a '(' is garbage.
import { ScanningFramer } from '../scanning-framer.js';

const OPEN = 0x28;
const CLOSE = 0x29;
const DOLLAR = 0x24;

export class Tk103Framer extends ScanningFramer {
  /** Stream offset from which the buffer held no ')' when last looked: a run of '(' is not rescanned per '('. */
  private noCloseFrom = 0;

  protected override isFiller(byte: number): boolean {
    return byte === 0x0d || byte === 0x0a;
  }

  protected frameSize(pos: number): number {
    if (this.buf[pos] !== OPEN) return -1;
    const limit = Math.min(this.buf.length, pos + this.maxFrameBytes);
    const from = Math.max(pos + 1, this.noCloseFrom - this.offset);
    if (this.buf.indexOf(CLOSE, from) < 0) {
      this.noCloseFrom = this.offset + this.buf.length;
      return this.buf.length - pos >= this.maxFrameBytes ? -1 : 0;
    }
    let dollars = 0;
    for (let i = pos + 1; i < limit; i++) {
      const c = this.buf[i];
      if (c === DOLLAR) dollars++;
      else if (c === CLOSE && dollars % 2 === 0) return i + 1 - pos;
    }
    return this.buf.length - pos >= this.maxFrameBytes ? -1 : 0;
  }
}
