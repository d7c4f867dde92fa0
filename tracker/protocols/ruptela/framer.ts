// Ruptela framing: a 2-byte big-endian length (the bytes after it, CRC excluded), the packet, then
// CRC-16/KERMIT. The length alone cannot tell a frame from noise, so a candidate must name a
// command the device sends after a plausible IMEI and, right after skipped garbage, carry a
// matching CRC.
// DTC packets are cut by their entry count instead (see packetLength).
import { crc16Kermit } from '../crc.js';
import { ScanningFramer } from '../scanning-framer.js';
import { DEVICE_COMMANDS, DTC_ENTRY, isImei, MSG } from './messages.js';

/** IMEI (8) and command id (1): the shortest packet a device sends. */
const MIN_PACKET = 9;

export class RuptelaFramer extends ScanningFramer {
  protected frameSize(pos: number): number {
    const avail = this.buf.length - pos;
    if (avail < 2) return 0;
    const length = this.packetLength(pos);
    if (length === undefined) return 0;
    const size = length + 4;
    if (length < MIN_PACKET || size > this.maxFrameBytes) return -1;
    if (avail < size) return 0;
    if (this.resyncing && crc16Kermit(this.buf, pos + 2, pos + 2 + length) !== this.buf.readUInt16BE(pos + 2 + length)) return -1;
    return size;
  }

  /** The packet's length (undefined while unknown, -1 when pos cannot start a packet). */
  private packetLength(pos: number): number | undefined {
    const avail = this.buf.length - pos;
    const declared = this.buf.readUInt16BE(pos);
    if (avail < 2 + MIN_PACKET) return declared;
    const command = this.buf[pos + 10]!;
    if (!DEVICE_COMMANDS.has(command) || !isImei(this.buf, pos + 2)) return -1;
    // Some firmware writes a wrong length into DTC packets: their entries have a fixed size.
    if (command === MSG.dtcs) return avail > 2 + MIN_PACKET ? MIN_PACKET + 1 + this.buf[pos + 11]! * DTC_ENTRY : undefined;
    return declared;
  }
}
