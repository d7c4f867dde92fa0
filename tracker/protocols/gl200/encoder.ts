// @Track commands: "AT+GT<command>=<password>,<parameters…>,<serial number>$". The unit answers
// "+ACK:GT<command>,<version>,<IMEI>,<name>,…,<serial number>,<send time>,<count>$"; the serial is
// the command's sequence number as four hex digits, so the answer names the command it confirms.
// The password is left empty, as units configured for server commands expect (custom text can carry one).
import { customText } from '../custom-text.js';
import type { CommandEncoders } from '../types.js';

/** The serial number field: the low 16 bits of the command's sequence number, in hex. */
function serial(commandSeq: number): string {
  return (commandSeq & 0xffff).toString(16).toUpperCase().padStart(4, '0');
}

function command(text: string): Buffer {
  return Buffer.from(text, 'latin1');
}

/** GTOUT with digital output 1 on (immobiliser engaged) or off. */
function output(on: boolean, commandSeq: number): Buffer {
  return command(`AT+GTOUT=,${on ? 1 : 0},,,0,0,0,0,0,0,0,,,,,,,${serial(commandSeq)}$`);
}

export const gl200Commands: CommandEncoders = {
  // GTRTO sub-command 1: report the current position now (answered by a GTRTL report).
  locate: (seq) => command(`AT+GTRTO=,1,,,,,,${serial(seq)}$`),
  engineStop: (seq) => output(true, seq),
  engineResume: (seq) => output(false, seq),
  // GTRTO sub-command 3: reboot.
  reboot: (seq) => command(`AT+GTRTO=,3,,,,,,${serial(seq)}$`),
  custom: (_seq, params) => command(customText('@Track', params)),
};
