// Commands to Wialon IPS units: text lines, as the units' firmware reads them (the protocol itself
// defines no command packet). Lines carry no serial: an answer (#M#) is matched to the oldest
// command sent.
import { customText } from '../custom-text.js';
import type { CommandEncoders } from '../types.js';

const line = (text: string) => Buffer.from(`${text}\r\n`, 'latin1');

export const wialonCommands: CommandEncoders = {
  reboot: () => line('reboot'),
  custom: (_seq, params) => line(customText('Wialon IPS', params)),
};
