// Meitrack framing: "$$<flag><length>,…", the length counting the bytes from the first comma
// through the closing "\r\n". Binary CCC/CCE packets are framed the same way, so the length is the
// only safe way to the end.
import { ScanningFramer } from '../scanning-framer.js';
import { isDigit } from '../text-numbers.js';

const DOLLAR = 0x24;
const COMMA = 0x2c;

export class MeitrackFramer extends ScanningFramer {
  protected override isFiller(byte: number): boolean {
    return byte === 0x0d || byte === 0x0a;
  }

  protected frameSize(pos: number): number {
    const buf = this.buf;
    const avail = buf.length - pos;
    if (buf[pos] !== DOLLAR) return -1;
    if (avail < 2) return 0;
    if (buf[pos + 1] !== DOLLAR) return -1;
    // "$$", the flag, 1 to 5 length digits, the comma, read from the buffer itself: every frame is sized here.
    const headEnd = pos + Math.min(avail, 9);
    let comma = pos + 2;
    while (comma < headEnd && buf[comma] !== COMMA) comma++;
    if (comma === headEnd) return avail >= 9 ? -1 : 0;
    if (comma < pos + 4) return -1;
    let digits = 0;
    for (let i = pos + 3; i < comma; i++) {
      if (!isDigit(buf[i]!)) return -1;
      digits = digits * 10 + buf[i]! - 0x30;
    }
    const length = comma - pos + digits;
    if (length > this.maxFrameBytes || digits < 6) return -1;
    return avail >= length ? length : 0;
  }
}
