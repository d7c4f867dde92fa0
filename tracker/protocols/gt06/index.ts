// GT06 protocol entry point for the device server.
import type { Protocol } from '../types.js';
import { decodeGt06 } from './decoder.js';
import { gt06Commands } from './encoder.js';
import { Gt06Framer } from './framer.js';

export const gt06: Protocol = {
  name: 'gt06',
  transport: 'tcp',
  commands: gt06Commands,
  detect: (first) => first.length >= 2 && (first[0] === 0x78 || first[0] === 0x79) && first[1] === first[0],
  createFramer: (maxFrameBytes) => new Gt06Framer(maxFrameBytes),
  decode: decodeGt06,
  // GT06 has no negative login answer: an unknown device is simply disconnected.
  rejectIdentity: () => null,
};
