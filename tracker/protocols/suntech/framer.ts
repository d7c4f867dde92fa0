// Suntech framing. Text reports end at '\r' (left out of the frame) (a "\r\n" inside a report, as in the serial data of a
// UEX report, does not end it). Binary reports carry their length: compressed ones (0x02) as
// header, 2-byte length, payload and a footer byte; universal binary ones (0x81/0x82, then a zero
// byte) as header and 2-byte length.
import { ScanningFramer } from '../scanning-framer.js';

const CR = 0x0d;
const LF = 0x0a;
const ZIP = 0x02;

export class SuntechFramer extends ScanningFramer {
  protected override isFiller(byte: number): boolean {
    return byte === CR || byte === LF;
  }

  protected frameSize(pos: number): number {
    const avail = this.buf.length - pos;
    const first = this.buf[pos]!;
    if (first === ZIP || first === 0x81 || first === 0x82) {
      if (avail < 3) return 0;
      const length = this.buf.readUInt16BE(pos + 1) + (first === ZIP ? 4 : 3);
      if (length > this.maxFrameBytes || length < 8) return -1;
      return avail >= length ? length : 0;
    }
    if (first < 0x20 || first > 0x7e) return -1;
    const limit = Math.min(this.buf.length, pos + this.maxFrameBytes);
    let end = this.buf.indexOf(CR, pos);
    while (end >= 0 && end < limit) {
      // A '\r' that ends the read ends the report: the unit waits after sending one.
      if (end + 1 >= this.buf.length || this.buf[end + 1] !== LF) return end - pos;
      end = this.buf.indexOf(CR, end + 1);
    }
    return avail >= this.maxFrameBytes ? -1 : 0;
  }
}
