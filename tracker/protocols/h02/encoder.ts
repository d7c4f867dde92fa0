// Server-to-device commands: text `*HQ,<id>,<command>,<HHMMSS>,<arguments>#`, the time of day (UTC)
// being when the command was made. H02 echoes no serial: a V4 confirmation answers the oldest
// command sent. From the manufacturer's command list: S20 cuts (1,1) or restores (1,0) the fuel
// relay, S71 with function 22 sets the reporting period in seconds. No reboot or locate is
// documented (see README.md).
import { customText } from '../custom-text.js';
import type { CommandEncoders, CommandParams } from '../types.js';

const hhmmss = (d: Date) => [d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds()].map((n) => String(n).padStart(2, '0')).join('');

function encode(params: CommandParams, command: string, args: string): Buffer {
  if (!params.identity) throw new RangeError('H02 commands name the device: its identifier is needed');
  return Buffer.from(`*HQ,${params.identity},${command},${hhmmss(new Date())},${args}#`, 'ascii');
}

export const h02Commands: CommandEncoders = {
  engineStop: (_seq, params) => encode(params, 'S20', '1,1'),
  engineResume: (_seq, params) => encode(params, 'S20', '1,0'),
  setInterval: (_seq, params) => encode(params, 'S71', `22,${params.seconds}`),
  // The text is the command and its arguments after the time, e.g. "SCF" arms with "SCF,0,0"… sent as is.
  custom: (_seq, params) => {
    const [command, ...args] = customText('H02', params).split(',');
    return encode(params, command!, args.join(','));
  },
};
