// Commands to Ruptela units. Engine stop/resume and text commands travel as an SMS command over
// GPRS (command 8) and are answered with command 7; a custom command given as hex is sent as is
// (a complete packet built by the caller). Ruptela packets carry no serial: the answer is matched
// to the oldest command sent.
import type { CommandEncoders } from '../types.js';
import { MSG, serverPacket } from './messages.js';

const sms = (text: string) => serverPacket(MSG.smsViaGprs, Buffer.from(text, 'latin1'));

export const ruptelaCommands: CommandEncoders = {
  engineStop: () => sms('pass immobilizer 10'),
  engineResume: () => sms('pass resetimmob'),
  custom: (_seq, params) => (params.hex !== undefined ? Buffer.from(params.hex, 'hex') : sms(params.text ?? '')),
};
