// JT/T 808 protocol entry point for the device server.
import type { Protocol } from '../types.js';
import { decodeJt808 } from './decoder.js';
import { encodeCustom, encodeEngineResume, encodeEngineStop, encodeLocate, encodeReboot, encodeSetInterval } from './encoder.js';
import { createJt808Framer } from './framer.js';

export const jt808: Protocol = {
  name: 'jt808',
  transport: 'tcp',
  commands: { locate: encodeLocate, engineStop: encodeEngineStop, engineResume: encodeEngineResume, reboot: encodeReboot, setInterval: encodeSetInterval, custom: encodeCustom },
  // A command's number is the message serial, a WORD.
  maxCommandSeq: 0xffff,
  // 7e then a message id whose high byte is an uplink id's (0x00…0x13, 0x20, 0x55, 0x60): GT06 starts
  // 78/79, Teltonika 00 00, H02 * or $, so none of theirs begins with 7e.
  detect: (first) => first.length >= 2 && first[0] === 0x7e && (first[1]! <= 0x13 || first[1] === 0x20 || first[1] === 0x55 || first[1] === 0x60),
  createFramer: createJt808Framer,
  decode: decodeJt808,
  // JT/T 808 refuses in its answer to the registration (0x8100 result 1..4) but an unknown terminal
  // may not register at all; the connection is closed instead.
  rejectIdentity: () => null,
};
