// Wialon IPS packets the way units send them: login, data (D), short data (SD), black box (B),
// ping (P) and a driver message (M, a command's answer). Version 2.0 adds the CRC-16 (ARC) field.
import { crc16Ibm } from '../../protocols/crc.js';
import type { DeviceFix, DeviceState } from './fix.js';

export type WialonVersion = '1.1' | '2.0';

const two = (n: number) => String(n).padStart(2, '0');

/** ddmmyy;hhmmss (UTC). */
const dateTime = (t: Date) =>
  `${two(t.getUTCDate())}${two(t.getUTCMonth() + 1)}${two(t.getUTCFullYear() % 100)};${two(t.getUTCHours())}${two(t.getUTCMinutes())}${two(t.getUTCSeconds())}`;

/** Degrees to DDMM.MMMMM (DDDMM.MMMMM) and the hemisphere letter. */
function degMin(value: number, degreeDigits: number, positive: string, negative: string): string {
  const abs = Math.abs(value);
  const degrees = Math.floor(abs);
  const minutes = (abs - degrees) * 60;
  return `${String(degrees).padStart(degreeDigits, '0')}${minutes.toFixed(5).padStart(8, '0')};${value < 0 ? negative : positive}`;
}

/** date;time;lat;N;lon;E;speed;course;altitude;sats — the short message. */
function shortFields(fix: DeviceFix): string {
  return [dateTime(fix.time), degMin(fix.lat, 2, 'N', 'S'), degMin(fix.lng, 3, 'E', 'W'), fix.speed.toFixed(1), Math.round(fix.heading), fix.altitude ?? 'NA', fix.satellites ?? (fix.valid === false ? 0 : 9)].join(';');
}

/** The full message: the short one, hdop, inputs (ignition on input 1), outputs, adc, ibutton, params. */
function fullFields(fix: DeviceFix, state: DeviceState): string {
  const params = [
    ...(state.power !== undefined ? [`pwr_ext:2:${state.power}`] : []),
    ...(state.fuelLevel !== undefined ? [`fuellevel:2:${state.fuelLevel}`] : []),
    ...(state.alarm === 'sos' ? ['SOS:1:1'] : []),
  ].join(',');
  return `${shortFields(fix)};0.9;${state.ignition ? 1 : 0};0;NA;NA;${params || 'NA'}`;
}

/** Appends the 2.0 CRC to a body that ends with ';' or '|'. */
const withCrc = (body: string, version: WialonVersion) => (version === '2.0' ? body + crc16Ibm(Buffer.from(body, 'utf8')).toString(16).toUpperCase().padStart(4, '0') : body.slice(0, -1));

const line = (text: string) => Buffer.from(`${text}\r\n`, 'utf8');

export function wialonLogin(imei: string, password = 'NA', version: WialonVersion = '2.0'): Buffer {
  return line(version === '2.0' ? `#L#${withCrc(`2.0;${imei};${password};`, version)}` : `#L#${imei};${password}`);
}

export function wialonPosition(fix: DeviceFix, state: DeviceState = {}, version: WialonVersion = '2.0'): Buffer {
  return line(`#D#${withCrc(`${fullFields(fix, state)};`, version)}`);
}

export function wialonShortPosition(fix: DeviceFix, version: WialonVersion = '2.0'): Buffer {
  return line(`#SD#${withCrc(`${shortFields(fix)};`, version)}`);
}

/** Stored messages sent together from the black box. */
export function wialonBlackBox(fixes: DeviceFix[], version: WialonVersion = '2.0'): Buffer {
  return line(`#B#${withCrc(fixes.map((f) => `${fullFields(f, {})}|`).join(''), version)}`);
}

export function wialonPing(): Buffer {
  return line('#P#');
}

/** A driver message, the way units answer a text command. */
export function wialonMessage(text: string, version: WialonVersion = '2.0'): Buffer {
  return line(`#M#${withCrc(`${text};`, version)}`);
}
