// GPS103 protocol entry point for the device server.
import type { Protocol } from '../types.js';
import { decodeGps103 } from './decoder.js';
import { gps103Commands } from './encoder.js';
import { Gps103Framer } from './framer.js';

/** A first message: "imei:<digits>", the handshake "##,imei:<digits>", or a bare IMEI heartbeat. */
const FIRST = /^(?:(?:##,)?imei:\d|\d{15}[;\r\n])/;

export const gps103: Protocol = {
  name: 'gps103',
  transport: 'tcp',
  commands: gps103Commands,
  detect: (first) => FIRST.test(first.toString('latin1', 0, 24)),
  createFramer: (maxFrameBytes) => new Gps103Framer(maxFrameBytes),
  decode: decodeGps103,
  // The unit has no refusal message; the connection is closed instead.
  rejectIdentity: () => null,
};
