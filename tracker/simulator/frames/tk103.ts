// TK103 frames the way the classic units send them: "(" <12-character id> <type> … ")" with the
// BP00 handshake, the BP05 login, BR00 reports, BO01 alarms and BP04, the answer to AP00 (locate).
import type { DeviceAlarm, DeviceFix, DeviceState } from './fix.js';
import { degMin } from './h02.js';

/** BO01's alarm digit; the other alarms have no BO01 code. */
const ALARM_DIGITS: Partial<Record<DeviceAlarm, string>> = { sos: '2', vibration: '3', overspeed: '5' };

/** YYMMDD A|V DDMM.MMMMN DDDMM.MMMME <km/h, 5> HHMMSS <course, 6> <charge, ACC, io, fuel> L<odometer hex>. */
export function tk103Location(fix: DeviceFix, state: DeviceState = {}, odometer = 0): string {
  const t = fix.time.toISOString().replace(/\D/g, '');
  return [
    t.slice(2, 8),
    fix.valid === false ? 'V' : 'A',
    degMin(fix.lat, 2),
    fix.lat >= 0 ? 'N' : 'S',
    degMin(fix.lng, 3),
    fix.lng >= 0 ? 'E' : 'W',
    fix.speed.toFixed(1).padStart(5, '0'),
    t.slice(8, 14),
    fix.heading.toFixed(2).padStart(6, '0'),
    `0${state.ignition ? '1' : '0'}000000`,
    `L${odometer.toString(16).toUpperCase().padStart(8, '0')}`,
  ].join('');
}

export function tk103Handshake(id: string): Buffer {
  return Buffer.from(`(${id}BP00${id}HSO)`, 'latin1');
}

export function tk103Login(id: string, imei: string, fix: DeviceFix): Buffer {
  return Buffer.from(`(${id}BP05${imei}${tk103Location(fix)})`, 'latin1');
}

export function tk103Position(id: string, fix: DeviceFix, state: DeviceState = {}): Buffer {
  return Buffer.from(`(${id}BR00${tk103Location(fix, state)})`, 'latin1');
}

/** BO01 with the alarm's digit; an alarm BO01 has no code for travels as a plain report. */
export function tk103Alarm(id: string, fix: DeviceFix, alarm: DeviceAlarm, state: DeviceState = {}): Buffer {
  const digit = ALARM_DIGITS[alarm];
  return digit ? Buffer.from(`(${id}BO01${digit}${tk103Location(fix, state)})`, 'latin1') : tk103Position(id, fix, state);
}

/** BP04: the position the unit sends in answer to AP00. */
export function tk103LocateReply(id: string, fix: DeviceFix, state: DeviceState = {}): Buffer {
  return Buffer.from(`(${id}BP04${tk103Location(fix, state)})`, 'latin1');
}
