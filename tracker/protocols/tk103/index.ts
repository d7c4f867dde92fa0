// TK103 protocol entry point for the device server.
import type { Protocol } from '../types.js';
import { decodeTk103 } from './decoder.js';
import { tk103Commands } from './encoder.js';
import { Tk103Framer } from './framer.js';

/** "(<id><type>" with a two-letter, two-digit type (BP00, BP05, BR00…), or "(<imei>,<type>,". */
const FIRST = /^\((?:\w{11,15}?[A-Z]{2}\d\d|\d{10,20},[A-Z]{2}[0-9A-F]{2},)/;

export const tk103: Protocol = {
  name: 'tk103',
  transport: 'tcp',
  commands: tk103Commands,
  detect: (first) => FIRST.test(first.toString('latin1', 0, 40)),
  createFramer: (maxFrameBytes) => new Tk103Framer(maxFrameBytes),
  decode: decodeTk103,
  // The unit has no refusal message; the connection is closed instead.
  rejectIdentity: () => null,
};
