// Server-to-device commands: "**,imei:<imei>,<code>[,<argument>]". The unit answers with a report
// (B: one position), not with a numbered reply, so nothing matches an answer to its command.
import { customText } from '../custom-text.js';
import type { CommandEncoders, CommandParams } from '../types.js';

function command(params: CommandParams, code: string): Buffer {
  if (!params.identity) throw new Error('a GPS103 command names the device: its IMEI is needed');
  return Buffer.from(`**,imei:${params.identity},${code}`, 'latin1');
}

/** The reporting period as the unit writes it: two digits and a unit (30s, 05m, 01h), coarsest first. */
export function period(seconds: number): string {
  const s = Math.max(1, Math.floor(seconds));
  const [value, unit] = s >= 3600 ? [Math.floor(s / 3600), 'h'] : s >= 60 ? [Math.floor(s / 60), 'm'] : [s, 's'];
  return `${String(Math.min(value, 99)).padStart(2, '0')}${unit}`;
}

export const gps103Commands: CommandEncoders = {
  locate: (_seq, params) => command(params, 'B'),
  engineStop: (_seq, params) => command(params, 'J'),
  engineResume: (_seq, params) => command(params, 'K'),
  setInterval: (_seq, params) => command(params, `C,${period(params.seconds ?? 0)}`),
  custom: (_seq, params) => command(params, customText('GPS103', params)),
};
