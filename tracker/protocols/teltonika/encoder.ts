// Codec 12 commands: 00000000 | length | 0C 01 05 | size(4) | text | 01 | CRC-16/IBM(4). Codec 12
// carries no serial: a response answers the oldest command sent.
import { crc16Ibm } from '../crc.js';
import type { CommandEncoders } from '../types.js';
import { CODEC_12 } from './decoder.js';

const TYPE_COMMAND = 0x05;

/** A Codec 12 command carrying `command` (the text of a GPRS command, or raw bytes). */
export function encodeCommand(command: Buffer): Buffer {
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

const text = (command: string) => encodeCommand(Buffer.from(command, 'ascii'));

/**
 * Teltonika's FMB GPRS commands: "getgps" answers with the current fix, "setdigout 1"/"setdigout 0"
 * drive DOUT1 (where the immobiliser relay is wired), "cpureset" restarts the device. The reporting
 * period is a set of configuration parameters that differ by model and by moving/stopped state,
 * so it is left to a custom command ("setparam …").
 */
export const teltonikaCommands: CommandEncoders = {
  locate: () => text('getgps'),
  engineStop: () => text('setdigout 1'),
  engineResume: () => text('setdigout 0'),
  reboot: () => text('cpureset'),
  custom: (_seq, { hex, text: command }) => {
    if (hex !== undefined) return encodeCommand(Buffer.from(hex, 'hex'));
    if (command === undefined) throw new RangeError('Teltonika custom commands are text or hex (attributes.text or attributes.hex)');
    return text(command);
  },
};
