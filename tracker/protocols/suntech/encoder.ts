// Suntech commands, in the legacy text form the ST300/ST600/SA200 family reads:
//   "<model>CMD;<id>;02;<action>\r"
// with the SA200 prefix, as Traccar sends it when it knows nothing better. The id is the unit's
// own: it must be in the command.
import { customText } from '../custom-text.js';
import type { CommandEncoders, CommandParams } from '../types.js';

function command(params: CommandParams, action: string): Buffer {
  if (!params?.identity) throw new Error('a Suntech command names the unit: its identity is required');
  return Buffer.from(`SA200CMD;${params.identity};02;${action}\r`, 'latin1');
}

export const suntechCommands: CommandEncoders = {
  locate: (_seq, params) => command(params, 'StatusReq'),
  // Output 1 drives the engine cut relay on the standard harness.
  engineStop: (_seq, params) => command(params, 'Enable1'),
  engineResume: (_seq, params) => command(params, 'Disable1'),
  reboot: (_seq, params) => command(params, 'Reboot'),
  custom: (_seq, params) => command(params, customText('Suntech', params)),
};
