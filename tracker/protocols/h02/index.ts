// H02 protocol entry point for the device server.
import type { Protocol } from '../types.js';
import { decodeH02 } from './decoder.js';
import { h02Commands } from './encoder.js';
import { H02Framer } from './framer.js';

export const h02: Protocol = {
  name: 'h02',
  transport: 'tcp',
  // No one-shot position request exists in H02; see README.md.
  commands: h02Commands,
  detect: (first) => first.length >= 3 && ((first[0] === 0x2a && /^\*[A-Za-z]{2},/.test(first.toString('latin1', 0, 4))) || first[0] === 0x24),
  createFramer: (maxFrameBytes) => new H02Framer(maxFrameBytes),
  decode: decodeH02,
  // H02 has no refusal message; the connection is closed instead.
  rejectIdentity: () => null,
};
