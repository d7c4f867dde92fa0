// Server-to-device commands. The online command (0x80) carries a 4-byte server flag that the
// device echoes in its 0x15/0x21 reply, so the flag is how a reply is matched to its command. The
// texts are Concox's SMS/online command set (GT06N, JM-VL and GT800 manuals).
import { crc16X25 } from '../crc.js';
import { customText } from '../custom-text.js';
import type { CommandEncoders } from '../types.js';
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

/**
 * "WHERE#" asks for the current position (the answer arrives as 0x21/0x15). Engine stop and resume
 * are Concox's "Relay,1#"/"Relay,0#"; older GT06 clones want "DYD,<password>#"/"HFYD,<password>#",
 * which a custom command sends. "RESET#" reboots; "TIMER,<on>,<off>#" sets the upload interval with
 * the ignition on and off, both set to the period asked for.
 */
export const gt06Commands: CommandEncoders = {
  locate: (seq) => encodeCommand('WHERE#', seq),
  engineStop: (seq) => encodeCommand('Relay,1#', seq),
  engineResume: (seq) => encodeCommand('Relay,0#', seq),
  reboot: (seq) => encodeCommand('RESET#', seq),
  setInterval: (seq, { seconds }) => encodeCommand(`TIMER,${seconds},${seconds}#`, seq),
  custom: (seq, params) => encodeCommand(customText('GT06', params), seq),
};
