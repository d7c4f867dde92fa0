// Meitrack framing: "$$<flag><length>,…", the length counting the bytes from the first comma
// through the closing "\r\n". Binary CCC/CCE packets are framed the same way, so the length is the
// only safe way to the end.
import { ScanningFramer } from '../scanning-framer.js';

const DOLLAR = 0x24;
const COMMA = 0x2c;

export class MeitrackFramer extends ScanningFramer {
  protected override isFiller(byte: number): boolean {
    return byte === 0x0d || byte === 0x0a;
  }

  protected frameSize(pos: number): number {
    const avail = this.buf.length - pos;
    if (this.buf[pos] !== DOLLAR) return -1;
    if (avail < 2) return 0;
    if (this.buf[pos + 1] !== DOLLAR) return -1;
    // "$$", the flag, up to 5 length digits, the comma.
    const head = this.buf.subarray(pos + 2, pos + Math.min(avail, 9));
    const comma = head.indexOf(COMMA);
    if (comma < 0) return avail >= 9 ? -1 : 0;
    const digits = head.toString('latin1', 1, comma);
    if (!/^\d{1,5}$/.test(digits)) return -1;
    const length = 2 + comma + Number(digits);
    if (length > this.maxFrameBytes || Number(digits) < 6) return -1;
    return avail >= length ? length : 0;
  }
}
