// Ruptela protocol entry point for the device server.
import type { Protocol } from '../types.js';
import { decodeRuptela } from './decoder.js';
import { ruptelaCommands } from './encoder.js';
import { RuptelaFramer } from './framer.js';
import { DEVICE_COMMANDS } from './messages.js';

/** IMEIs are below 10^15, so the two top bytes of the 8-byte IMEI are zero. */
const MAX_IMEI_HIGH_BYTE = 0x03;

export const ruptela: Protocol = {
  name: 'ruptela',
  transport: 'tcp',
  commands: ruptelaCommands,
  detect: (first) =>
    first.length >= 11 && first.readUInt16BE(0) >= 9 && first[2] === 0 && first[3] === 0 && first[4]! <= MAX_IMEI_HIGH_BYTE && DEVICE_COMMANDS.has(first[10]!),
  createFramer: (maxFrameBytes) => new RuptelaFramer(maxFrameBytes),
  decode: decodeRuptela,
  // Ruptela has no refusal packet; the connection is closed instead.
  rejectIdentity: () => null,
};
