// Server-to-terminal commands. Every JT/T 808 downlink carries the terminal's phone number in its
// header, and the command encoders are given only the command (see README.md): the one command
// that can be sent is `custom` with a complete frame as hex, sent as is (Traccar's default for
// custom data), whose serial the terminal echoes in its 0x0001 answer.
import type { CommandParams } from '../types.js';

export function encodeCustom(_commandSeq: number, params: CommandParams): Buffer {
  const hex = params.hex ?? '';
  if (!/^([0-9a-fA-F]{2})+$/.test(hex)) throw new RangeError('JT808 custom command needs a frame as hex');
  return Buffer.from(hex, 'hex');
}
