// Meitrack commands: "@@<flag><length>,<imei>,<command>*<checksum>\r\n". The unit answers with
// the same command code ("$$…,C01,OK*…"), which comes back as the command reply.
import { customText } from '../custom-text.js';
import type { CommandEncoders, CommandParams } from '../types.js';
import { meitrackMessage } from './checksum.js';

function command(params: CommandParams, content: string): Buffer {
  if (!params?.identity) throw new Error('a Meitrack command names the unit: its identity is required');
  return meitrackMessage('A', params.identity, content);
}

export const meitrackCommands: CommandEncoders = {
  locate: (_seq, params) => command(params, 'A10'),
  // C01 sets outputs 1..5 (0 off, 1 on, 2 unchanged): output 1 is the engine cut relay.
  engineStop: (_seq, params) => command(params, 'C01,0,12222'),
  engineResume: (_seq, params) => command(params, 'C01,0,02222'),
  reboot: (_seq, params) => command(params, 'F02'),
  // A12 sets the interval of timed reports in tens of seconds.
  setInterval: (_seq, params) => command(params, `A12,${Math.max(1, Math.round((params.seconds ?? 60) / 10))}`),
  custom: (_seq, params) => command(params, customText('Meitrack', params)),
};
