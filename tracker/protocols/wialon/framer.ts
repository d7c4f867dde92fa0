// Wialon IPS framing: one packet per line, ended by CRLF. A packet starts with '#' (the type) or,
// from units that put it in front, the IMEI or "2.0;IMEI". A line longer than the cap is dropped
// to its end.
import { ScanningFramer } from '../scanning-framer.js';
import { isDigit } from '../text-numbers.js';

const LF = 0x0a;
const HASH = 0x23;

export class WialonFramer extends ScanningFramer {
  /** True while the rest of an overlong line is skipped, up to its line end. */
  private dropping = false;

  protected override isFiller(byte: number): boolean {
    return byte === 0x0d || byte === LF;
  }

  protected frameSize(pos: number): number {
    const c = this.buf[pos]!;
    if (this.dropping) {
      this.dropping = c !== LF;
      return -1;
    }
    if (c !== HASH && !isDigit(c)) return -1;
    const end = this.buf.indexOf(LF, pos);
    if (end >= 0 && end - pos < this.maxFrameBytes) return end + 1 - pos;
    if (this.buf.length - pos < this.maxFrameBytes) return 0;
    // Dropped whole: its tail must not be read as packets.
    this.dropping = true;
    return -1;
  }
}
