// Wialon IPS protocol entry point for the device server.
import type { Protocol } from '../types.js';
import { decodeWialon } from './decoder.js';
import { wialonCommands } from './encoder.js';
import { WialonFramer } from './framer.js';

/** A packet a unit opens a connection with: login first, or data from units that skip it. */
const FIRST_PACKET = /^(?:(?:\d\.\d;)?\d+)?#(?:L|P|SD|D|B)#/;

export const wialon: Protocol = {
  name: 'wialon',
  transport: 'tcp',
  commands: wialonCommands,
  detect: (first) => FIRST_PACKET.test(first.toString('latin1', 0, 32)),
  createFramer: (maxFrameBytes) => new WialonFramer(maxFrameBytes),
  decode: (frame, conn) => decodeWialon(frame, conn),
  // "#AL#0": login refused.
  rejectIdentity: () => Buffer.from('#AL#0\r\n', 'latin1'),
};
