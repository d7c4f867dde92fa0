// Server-to-device commands in the classic form "(<id><code>)". The unit answers some of them
// (AP00 with a BP04 position, the comma-separated firmwares with a ZC03 text) without a serial,
// so an answer delivers the device's oldest sent command.
import { customText } from '../custom-text.js';
import type { CommandEncoders, CommandParams } from '../types.js';

function command(params: CommandParams, code: string): Buffer {
  if (!params.identity) throw new Error('a TK103 command names the device: its id is needed');
  return Buffer.from(`(${params.identity}${code})`, 'latin1');
}

/** AR00: the tracking interval in seconds as 4 hex digits, then the tracking duration (0: until stopped). */
function interval(seconds: number): string {
  const s = Math.min(0xffff, Math.max(1, Math.floor(seconds)));
  return `AR00${s.toString(16).toUpperCase().padStart(4, '0')}0000`;
}

export const tk103Commands: CommandEncoders = {
  locate: (_seq, params) => command(params, 'AP00'),
  // AV01 drives the fuel/power cut relay: 0 cuts, 1 restores.
  engineStop: (_seq, params) => command(params, 'AV010'),
  engineResume: (_seq, params) => command(params, 'AV011'),
  reboot: (_seq, params) => command(params, 'AT00'),
  setInterval: (_seq, params) => command(params, interval(params.seconds ?? 0)),
  custom: (_seq, params) => command(params, customText('TK103', params)),
};
