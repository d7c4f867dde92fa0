// Teltonika protocol entry point for the device server.
import type { Protocol } from '../types.js';
import { decodeTeltonika } from './decoder.js';
import { teltonikaCommands } from './encoder.js';
import { TeltonikaFramer } from './framer.js';

export const teltonika: Protocol = {
  name: 'teltonika',
  transport: 'tcp',
  commands: teltonikaCommands,
  // The first packet of a connection is the IMEI handshake: 00 0F followed by digits.
  detect: (first) => first.length >= 3 && first[0] === 0x00 && first[1]! > 0 && first[1]! <= 20 && first[2]! >= 0x30 && first[2]! <= 0x39,
  createFramer: (maxFrameBytes) => new TeltonikaFramer(maxFrameBytes),
  decode: decodeTeltonika,
  // A single 00 byte tells the device its IMEI was refused.
  rejectIdentity: () => Buffer.from([0x00]),
};
