// Teltonika TCP framing. A connection opens with the IMEI handshake (2-byte length + ASCII
// digits); after that every packet is 00 00 00 00 | data length(4) | data | CRC(4). Some
// devices also send a lone 0xFF as a keep-alive, which is passed on as a one-byte frame.
import { ScanningFramer } from '../scanning-framer.js';

const MAX_IMEI_LENGTH = 20;

export class TeltonikaFramer extends ScanningFramer {
  /** A lone 0xFF is a keep-alive, except while skipping garbage. */
  protected frameSize(pos: number): number {
    const b = this.buf;
    const avail = b.length - pos;
    if (b[pos] === 0xff) return this.resyncing ? -1 : 1;
    if (avail < 2) return b[pos] === 0x00 ? 0 : -1;
    const len16 = b.readUInt16BE(pos);
    if (len16 > 0) {
      // IMEI handshake: all payload bytes must be ASCII digits.
      if (len16 > MAX_IMEI_LENGTH) return -1;
      const end = Math.min(b.length, pos + 2 + len16);
      for (let i = pos + 2; i < end; i++) if (b[i]! < 0x30 || b[i]! > 0x39) return -1;
      return avail >= 2 + len16 ? 2 + len16 : 0;
    }
    if (avail < 8) {
      for (let i = pos + 2; i < b.length; i++) if (b[i] !== 0) return -1;
      return 0;
    }
    if (b.readUInt16BE(pos + 2) !== 0) return -1;
    const dataLength = b.readUInt32BE(pos + 4);
    const size = 8 + dataLength + 4;
    if (dataLength === 0 || size > this.maxFrameBytes) return -1; // resync rather than buffer it
    return avail >= size ? size : 0;
  }
}
