// Queclink @Track (GL/GV/GMT series) entry point for the device server.
import type { Protocol } from '../types.js';
import { decodeGl200 } from './decoder.js';
import { gl200Commands } from './encoder.js';
import { Gl200Framer } from './framer.js';

/** Report headers a unit opens a connection with: text ("+RESP:") or binary ("+RSP", '+' NUL…). */
const FIRST = /^\+(RESP:|BUFF:|ACK|RSP|BSP|EVT|BVT|INF|BNF|HBD|CRD|BRD|LGN)/;

export const gl200: Protocol = {
  name: 'gl200',
  transport: 'tcp',
  commands: gl200Commands,
  detect: (first) => first.length >= 4 && first[0] === 0x2b && (first[1] === 0x00 || FIRST.test(first.toString('latin1', 0, 6))),
  createFramer: (maxFrameBytes) => new Gl200Framer(maxFrameBytes),
  decode: decodeGl200,
  // @Track has no refusal message; the connection is closed instead.
  rejectIdentity: () => null,
};
