// GPS103 framing. Messages are text ended by ';' (most firmwares), '*' (the alternative format),
// or a line end; the frame keeps its terminator, which tells the two report formats apart. A
// message starts with "imei:", "##," (handshake) or a digit (the heartbeat is the bare IMEI, and
// some units put the IMEI in front of a report); anything else before one is garbage.
import { ScanningFramer } from '../scanning-framer.js';

/** ';', '*', '\n', '\r': compared directly, since the search runs over every byte of a message. */
export const isTerminator = (c: number) => c === 0x3b || c === 0x2a || c === 0x0a || c === 0x0d;
const isStart = (c: number) => c === 0x69 || c === 0x23 || (c >= 0x30 && c <= 0x39);
const IMEI = Buffer.from('imei:', 'latin1');

export class Gps103Framer extends ScanningFramer {
  // Digits start a message, so a long run without a terminator holds many candidate starts; the
  // search is remembered (stream offsets) so each byte is looked at once, not once per start.
  /** The first terminator at or after the current start (-1: none up to `searched`). */
  private terminator = -1;
  private searched = 0;
  /**
   * A message longer than the cap is dropped whole, up to its terminator (its digits would
   * otherwise start bogus messages): the stream offset of the last byte to drop, Infinity while
   * that terminator has not arrived, and a new "imei:" ends the drop early.
   */
  private dropUntil = -1;

  protected override isFiller(byte: number): boolean {
    return byte === 0x0d || byte === 0x0a;
  }

  protected frameSize(pos: number): number {
    const at = this.offset + pos;
    if (at <= this.dropUntil) {
      const resume = this.dropUntil === Infinity ? this.imeiAt(pos) : false;
      if (resume === null) return 0;
      if (resume) this.dropUntil = -1;
      else {
        if (this.dropUntil === Infinity && isTerminator(this.buf[pos]!)) this.dropUntil = at;
        return -1;
      }
    }
    if (!isStart(this.buf[pos]!)) return -1;
    if (this.terminator >= 0 && at > this.terminator) this.terminator = -1;
    if (this.terminator < 0) {
      let i = Math.max(this.searched, at) - this.offset;
      while (i < this.buf.length && !isTerminator(this.buf[i]!)) i++;
      this.searched = this.offset + i;
      if (i < this.buf.length) this.terminator = this.offset + i;
    }
    if (this.terminator >= 0) {
      const size = this.terminator + 1 - at;
      if (size <= this.maxFrameBytes) return size;
      this.dropUntil = this.terminator;
      return -1;
    }
    if (this.buf.length - pos < this.maxFrameBytes) return 0;
    this.dropUntil = Infinity;
    return -1;
  }

  /** Whether "imei:" starts at pos; null while the bytes so far could still be its beginning. */
  private imeiAt(pos: number): boolean | null {
    const seen = this.buf.subarray(pos, pos + IMEI.length);
    if (!IMEI.subarray(0, seen.length).equals(seen)) return false;
    return seen.length === IMEI.length ? true : null;
  }
}
