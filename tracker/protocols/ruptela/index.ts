// Ruptela protocol entry point for the device server.
import type { Protocol } from '../types.js';
import { decodeRuptela } from './decoder.js';
import { ruptelaCommands } from './encoder.js';
import { RuptelaFramer } from './framer.js';
import { DEVICE_COMMANDS, isImei } from './messages.js';

export const ruptela: Protocol = {
  name: 'ruptela',
  transport: 'tcp',
  commands: ruptelaCommands,
  detect: (first) =>
    first.length >= 11 && first.readUInt16BE(0) >= 9 && isImei(first, 2) && DEVICE_COMMANDS.has(first[10]!),
  createFramer: (maxFrameBytes) => new RuptelaFramer(maxFrameBytes),
  decode: decodeRuptela,
  // Ruptela has no refusal packet; the connection is closed instead.
  rejectIdentity: () => null,
};
