// Meitrack protocol entry point for the device server.
import type { Protocol } from '../types.js';
import { decodeMeitrack } from './decoder.js';
import { meitrackCommands } from './encoder.js';
import { MeitrackFramer } from './framer.js';

export const meitrack: Protocol = {
  name: 'meitrack',
  transport: 'tcp',
  commands: meitrackCommands,
  // "$$", the flag, ASCII length digits, a comma: an H02 binary message ('$' then BCD) never has that comma.
  detect: (first) => /^\$\$[\x21-\x7e]\d{1,5},/.test(first.toString('latin1', 0, 9)),
  createFramer: (maxFrameBytes) => new MeitrackFramer(maxFrameBytes),
  decode: decodeMeitrack,
  // Meitrack has no refusal message; the connection is closed instead.
  rejectIdentity: () => null,
};
