// Server-to-device commands. The online command (0x80) carries a 4-byte server flag that the
// device echoes in its 0x15/0x21 reply, so the flag is how a reply is matched to its command.
import { crc16X25 } from '../crc.js';
import { MSG } from './decoder.js';

/** Builds 78 78 | len | 80 | cmdLen | flag(4) | ASCII command | serial(2) | crc | 0d 0a. */
export function encodeCommand(text: string, commandSeq: number): Buffer {
  const command = Buffer.from(text, 'ascii');
  const cmdLen = 4 + command.length;
  // Length counts protocol number, command length byte, flag+command, serial and CRC.
  const length = 1 + 1 + cmdLen + 2 + 2;
  if (length > 0xff) throw new RangeError('GT06 command too long');
  const out = Buffer.alloc(3 + length + 2);
  out[0] = 0x78;
  out[1] = 0x78;
  out[2] = length;
  out[3] = MSG.COMMAND;
  out[4] = cmdLen;
  out.writeUInt32BE(commandSeq >>> 0, 5);
  command.copy(out, 9);
  const serialAt = 9 + command.length;
  out.writeUInt16BE(commandSeq & 0xffff, serialAt);
  out.writeUInt16BE(crc16X25(out, 2, serialAt + 2), serialAt + 2);
  out[serialAt + 4] = 0x0d;
  out[serialAt + 5] = 0x0a;
  return out;
}

/** "WHERE#" asks Concox trackers for their current position; the answer arrives as 0x21/0x15. */
export function encodeLocate(commandSeq: number): Buffer {
  return encodeCommand('WHERE#', commandSeq);
}
