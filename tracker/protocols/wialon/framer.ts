// Wialon IPS framing: one packet per line, ended by CRLF. A packet starts with '#' (the type) or,
// from units that put it in front, the IMEI or "2.0;IMEI".
import { ScanningFramer } from '../scanning-framer.js';

const LF = 0x0a;
const HASH = 0x23;

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;

export class WialonFramer extends ScanningFramer {
  protected override isFiller(byte: number): boolean {
    return byte === 0x0d || byte === LF;
  }

  protected frameSize(pos: number): number {
    const c = this.buf[pos]!;
    if (c !== HASH && !isDigit(c)) return -1;
    const end = this.buf.indexOf(LF, pos);
    if (end >= 0 && end - pos < this.maxFrameBytes) return end + 1 - pos;
    return this.buf.length - pos >= this.maxFrameBytes ? -1 : 0;
  }
}
