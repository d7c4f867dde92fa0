// Codec 12 commands: 00000000 | length | 0C 01 05 | size(4) | text | 01 | CRC-16/IBM(4).
import { crc16Ibm } from '../crc.js';
import { CODEC_12 } from './decoder.js';

const TYPE_COMMAND = 0x05;

export function encodeCommand(text: string): Buffer {
  const command = Buffer.from(text, 'ascii');
  const dataLength = 1 + 1 + 1 + 4 + command.length + 1;
  const out = Buffer.alloc(8 + dataLength + 4);
  out.writeUInt32BE(dataLength, 4);
  out[8] = CODEC_12;
  out[9] = 1;
  out[10] = TYPE_COMMAND;
  out.writeUInt32BE(command.length, 11);
  command.copy(out, 15);
  out[15 + command.length] = 1;
  out.writeUInt32BE(crc16Ibm(out, 8, 8 + dataLength), 8 + dataLength);
  return out;
}

/** "getgps" makes FMB devices answer with their current fix as a Codec 12 response. */
export function encodeLocate(): Buffer {
  return encodeCommand('getgps');
}
