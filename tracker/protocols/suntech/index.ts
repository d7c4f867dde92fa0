// Suntech protocol entry point for the device server.
import type { Protocol } from '../types.js';
import { decodeSuntech } from './decoder.js';
import { suntechCommands } from './encoder.js';
import { SuntechFramer } from './framer.js';

/** Legacy "ST300STT;", "SA200ALV;", ST910 "ST910;" and universal "STT;"-style report headers. */
const TEXT_HEADER = /^(S[AT]\d{3}[A-Z]{0,3}|[A-Z]{3});/;

export const suntech: Protocol = {
  name: 'suntech',
  transport: 'tcp',
  commands: suntechCommands,
  detect: (first) => TEXT_HEADER.test(first.toString('latin1', 0, 9)),
  createFramer: (maxFrameBytes) => new SuntechFramer(maxFrameBytes),
  decode: decodeSuntech,
  // Suntech has no refusal message; the connection is closed instead.
  rejectIdentity: () => null,
};
