// GT06 stream framing. Frames start with 78 78 (1-byte length) or 79 79 (2-byte length) and
// end with 0d 0a. The length byte counts protocol number through CRC, so a frame is
// header + length field + length + 2. Some firmwares send a length that does not match the
// payload; when the declared end is not 0d 0a we fall back to the first 0d 0a after the
// header, as long as it lies within the size cap.
import { ScanningFramer } from '../scanning-framer.js';

export class Gt06Framer extends ScanningFramer {
  protected frameSize(pos: number): number {
    const b = this.buf;
    const avail = b.length - pos;
    if (!this.isHeader(pos)) return (b[pos] === 0x78 || b[pos] === 0x79) && avail === 1 ? 0 : -1;
    if (avail < 5) return 0;
    const extended = b[pos] === 0x79;
    const declared = extended ? b.readUInt16BE(pos + 2) : b[pos + 2]!;
    const size = (extended ? 4 : 3) + declared + 2;
    const plausible = declared >= 5 && size <= this.maxFrameBytes;
    if (plausible && avail >= size && b[pos + size - 2] === 0x0d && b[pos + size - 1] === 0x0a) {
      return size;
    }
    // Irregular length. While a plausible frame is still incomplete, only a terminator that
    // ends the buffered data or precedes the next header counts, so binary payload bytes
    // that happen to read 0d 0a do not cut a regular frame short.
    const waiting = plausible && avail < size;
    const limit = Math.min(b.length, pos + this.maxFrameBytes);
    for (let i = pos + 4; i + 1 < limit; i++) {
      // Another header before any terminator: what we are looking at is not a frame.
      if (!waiting && this.isHeader(i)) return -1;
      if (b[i] !== 0x0d || b[i + 1] !== 0x0a) continue;
      if (!waiting || i + 2 === b.length || this.isHeader(i + 2)) return i + 2 - pos;
    }
    if (waiting) return 0;
    return avail >= this.maxFrameBytes || plausible ? -1 : 0;
  }

  private isHeader(at: number): boolean {
    const c = this.buf[at];
    return (c === 0x78 || c === 0x79) && this.buf[at + 1] === c;
  }
}
