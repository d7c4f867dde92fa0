// GPS103 framing. Messages are text ended by ';' (most firmwares), '*' (the alternative format),
// or a line end; the frame keeps its terminator, which tells the two report formats apart. A
// message starts with "imei:", "##," (handshake) or a digit (the heartbeat is the bare IMEI, and
// some units put the IMEI in front of a report); anything else before one is garbage.
import { ScanningFramer } from '../scanning-framer.js';

const TERMINATORS = new Set([0x3b, 0x2a, 0x0a, 0x0d]);
const isStart = (c: number) => c === 0x69 || c === 0x23 || (c >= 0x30 && c <= 0x39);

export class Gps103Framer extends ScanningFramer {
  protected override isFiller(byte: number): boolean {
    return byte === 0x0d || byte === 0x0a;
  }

  protected frameSize(pos: number): number {
    if (!isStart(this.buf[pos]!)) return -1;
    const limit = Math.min(this.buf.length, pos + this.maxFrameBytes);
    for (let i = pos + 1; i < limit; i++) {
      const c = this.buf[i]!;
      if (TERMINATORS.has(c)) return i + 1 - pos;
    }
    return this.buf.length - pos >= this.maxFrameBytes ? -1 : 0;
  }
}
