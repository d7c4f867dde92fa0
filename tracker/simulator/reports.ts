// The frames a simulated unit of each TCP protocol sends: its login, where the protocol has one, and
// a report of its fix (the alarm variant when the state carries an alarm). The simulated devices and
// the ingest benchmark both send these.
import type { SimProtocol } from './protocols.js';
import type { DeviceFix, DeviceState } from './frames/fix.js';
import { gl200Alarm, gl200Position } from './frames/gl200.js';
import { gps103Alarm, gps103Handshake, gps103Position } from './frames/gps103.js';
import { gt06Alarm, gt06Login, gt06Position } from './frames/gt06.js';
import { h02Alarm, h02Position } from './frames/h02.js';
import { jt808Auth, jt808Position, jt808Register } from './frames/jt808.js';
import { meitrackAlarm, meitrackPosition } from './frames/meitrack.js';
import { ruptelaIdentification, ruptelaPosition } from './frames/ruptela.js';
import { suntechAlarm, suntechPosition } from './frames/suntech.js';
import { teltonikaAvl, teltonikaHandshake, teltonikaRecord } from './frames/teltonika.js';
import { tk103Alarm, tk103Handshake, tk103Position } from './frames/tk103.js';
import { wialonLogin, wialonPosition } from './frames/wialon.js';

export type TcpSimProtocol = Exclude<SimProtocol, 'osmand'>;

/** The first bytes a unit sends, or null when its reports name it (Meitrack, H02, Suntech, Queclink). */
export function loginFrame(protocol: TcpSimProtocol, id: string, nextSerial: () => number): Buffer | null {
  switch (protocol) {
    case 'gt06':
      return gt06Login(id, nextSerial());
    case 'teltonika':
      return teltonikaHandshake(id);
    case 'ruptela':
      return ruptelaIdentification(id);
    case 'wialon':
      return wialonLogin(id);
    case 'jt808': // registration, then authentication with the code the answer carries (the id)
      return Buffer.concat([jt808Register(id, nextSerial()), jt808Auth(id, id, nextSerial())]);
    case 'gps103':
      return gps103Handshake(id);
    case 'tk103':
      return tk103Handshake(id);
    default:
      return null;
  }
}

/** One report of `fix` by the unit known as `id` (simIdentifier). */
export function reportFrame(protocol: TcpSimProtocol, id: string, fix: DeviceFix, state: DeviceState, nextSerial: () => number): Buffer {
  const { alarm } = state;
  switch (protocol) {
    case 'gt06':
      return alarm ? gt06Alarm(fix, alarm, state, nextSerial()) : gt06Position(fix, state, nextSerial());
    case 'teltonika':
      return teltonikaAvl([teltonikaRecord(fix, state)], 0x8e);
    case 'h02':
      return alarm ? h02Alarm(id, fix, alarm, state) : h02Position(id, fix, state);
    case 'suntech':
      return alarm ? suntechAlarm(id, fix, alarm, state) : suntechPosition(id, fix, state);
    case 'meitrack':
      return alarm ? meitrackAlarm(id, fix, alarm, state) : meitrackPosition(id, fix, state);
    case 'ruptela':
      return ruptelaPosition(id, fix, state);
    case 'wialon':
      return wialonPosition(fix, state);
    case 'gl200':
      return alarm ? gl200Alarm(id, fix, alarm, nextSerial()) : gl200Position(id, fix, state, nextSerial());
    case 'jt808':
      return jt808Position(id, fix, state, nextSerial());
    case 'gps103':
      return alarm ? gps103Alarm(id, fix, alarm, state) : gps103Position(id, fix, state);
    case 'tk103':
      return alarm ? tk103Alarm(id, fix, alarm, state) : tk103Position(id, fix, state);
  }
}
