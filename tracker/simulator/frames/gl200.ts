// Queclink @Track text frames the way GV-series units send them (Queclink @Track air interface
// protocol): GTFRI fixed reports, GTSOS and other alarm reports, GTIGN/GTIGF, the GTHBD heartbeat
// and the +ACK a command gets. Every report ends with the send time, a hex count number and '$'.
import type { DeviceAlarm, DeviceFix, DeviceState } from './fix.js';

/** Protocol version field: GV300 (device type 06), protocol 01.02. */
const VERSION = '060102';
const NAME = 'gv300';

const two = (n: number) => String(n).padStart(2, '0');

/** yyyyMMddHHmmss, UTC. */
export function gl200Time(t: Date): string {
  return `${t.getUTCFullYear()}${two(t.getUTCMonth() + 1)}${two(t.getUTCDate())}${two(t.getUTCHours())}${two(t.getUTCMinutes())}${two(t.getUTCSeconds())}`;
}

const count = (n: number) => (n & 0xffff).toString(16).toUpperCase().padStart(4, '0');

/** The location block: accuracy, km/h, azimuth, altitude, longitude, latitude, time, then the cell. */
function location(fix: DeviceFix): string {
  const accuracy = fix.valid === false ? 0 : 1;
  return [accuracy, fix.speed.toFixed(1), Math.round(fix.heading), (fix.altitude ?? 0).toFixed(1), fix.lng.toFixed(6), fix.lat.toFixed(6), gl200Time(fix.time), '0234', '0015', '0025', '145A', '00'].join(',');
}

function frame(header: string, fields: (string | number)[], sent: Date, n: number): Buffer {
  return Buffer.from(`${header},${[...fields, gl200Time(sent), count(n)].join(',')}$`, 'latin1');
}

/** GTFRI: one fix, then odometer, hour meter, analog inputs, backup battery % and device status (ignition byte 0x2X on, 0x1X off). */
export function gl200Position(imei: string, fix: DeviceFix, state: DeviceState = {}, n = 1, buffered = false): Buffer {
  const power = state.power === undefined ? '' : Math.round(state.power * 1000);
  const status = state.ignition ? '220100' : '110000';
  return frame(buffered ? '+BUFF:GTFRI' : '+RESP:GTFRI', [VERSION, imei, NAME, power, 10, 1, location(fix), '2000.0', '00010:12:30', '', '', state.batteryLevel ?? 100, status, '', '', ''], fix.time, n);
}

/** Alarm reports that are a type of their own. */
const ALARM_TYPES: Partial<Record<DeviceAlarm, string>> = { sos: 'GTSOS', overspeed: 'GTSPD', powerCut: 'GTMPF', lowBattery: 'GTBPL' };

/** An event report (GTSOS, GTSPD…): the fix, the mileage, then the send time. */
export function gl200Alarm(imei: string, fix: DeviceFix, alarm: DeviceAlarm, n = 1): Buffer {
  return frame(`+RESP:${ALARM_TYPES[alarm] ?? 'GTSOS'}`, [VERSION, imei, NAME, '', 0, 1, location(fix), '2000.0'], fix.time, n);
}

/** GTIGN / GTIGF: ignition on or off, with the duration of the previous state. */
export function gl200Ignition(imei: string, fix: DeviceFix, on: boolean, n = 1): Buffer {
  return frame(on ? '+RESP:GTIGN' : '+RESP:GTIGF', [VERSION, imei, NAME, 120, location(fix), '2000.0'], fix.time, n);
}

/** The heartbeat; the server answers "+SACK:GTHBD,<version>,<count>$". */
export function gl200Heartbeat(imei: string, sent: Date, n = 1): Buffer {
  return frame('+ACK:GTHBD', [VERSION, imei, NAME], sent, n);
}

/** The acknowledgement of a command ("RTO" for AT+GTRTO) echoing its serial number. */
export function gl200CommandAck(imei: string, command: string, serial: string, sent: Date, n = 1): Buffer {
  return frame(`+ACK:GT${command}`, [VERSION, imei, NAME, serial], sent, n);
}

/** A binary date-time: year (2 bytes), month, day, hour, minute, second. */
function binaryTime(t: Date): Buffer {
  const b = Buffer.alloc(7);
  b.writeUInt16BE(t.getUTCFullYear(), 0);
  [t.getUTCMonth() + 1, t.getUTCDate(), t.getUTCHours(), t.getUTCMinutes(), t.getUTCSeconds()].forEach((v, i) => b.writeUInt8(v, 2 + i));
  return b;
}

/** A binary fix: HDOP, speed 0.1 km/h (3 bytes), course, altitude, longitude, latitude (1e-6°), time, cell. */
function binaryFix(fix: DeviceFix): Buffer {
  const b = Buffer.alloc(1 + 3 + 2 + 2 + 4 + 4);
  b.writeUInt8(fix.valid === false ? 0 : 1, 0);
  b.writeUIntBE(Math.round(fix.speed * 10), 1, 3);
  b.writeUInt16BE(Math.round(fix.heading), 4);
  b.writeInt16BE(Math.round(fix.altitude ?? 0), 6);
  b.writeInt32BE(Math.round(fix.lng * 1e6), 8);
  b.writeInt32BE(Math.round(fix.lat * 1e6), 12);
  const cell = Buffer.alloc(9);
  cell.writeUInt16BE(234, 0);
  cell.writeUInt16BE(15, 2);
  cell.writeUInt16BE(0x25, 4);
  cell.writeUInt16BE(0x145a, 6);
  return Buffer.concat([b, binaryTime(fix.time), cell]);
}

/**
 * A binary report with the default mask: "+RSP" (type 0, fixed report, several fixes) or "+EVT"
 * (type 1, power on, one fix), then the send time, count number and CR LF.
 */
export function gl200Binary(header: '+RSP' | '+EVT', imei: string, fixes: DeviceFix[], state: DeviceState = {}, n = 1): Buffer {
  const head = Buffer.alloc(4 + 1 + 4 + 2 + 1 + 2 + 2 + 8 + 1 + 2 + 1 + 1);
  head.write(header, 0, 'latin1');
  head.writeUInt8(header === '+RSP' ? 0 : 1, 4);
  head.writeUInt32BE(0xfc1fbf00, 5);
  head.writeUInt8(0x06, 11); // device type: GV300
  head.writeUInt16BE(0x0102, 12);
  head.writeUInt16BE(0x0100, 14);
  head.writeBigUInt64BE(BigInt(imei), 16);
  head.writeUInt8(state.batteryLevel ?? 100, 24);
  head.writeUInt16BE(Math.round((state.power ?? 0) * 1000), 25);
  head.writeUInt8(state.ignition ? 0x22 : 0x11, 27);
  head.writeUInt8(fixes[0]?.satellites ?? 8, 28);
  // +RSP: index, then the number of fixes; +EVT: the number (always 1).
  const count = header === '+RSP' ? Buffer.from([0, fixes.length]) : Buffer.from([1]);
  const tail = Buffer.alloc(4);
  tail.writeUInt16BE(n & 0xffff, 0);
  tail.write('\r\n', 2, 'latin1');
  const frame = Buffer.concat([head, count, ...fixes.map(binaryFix), binaryTime(fixes[0]?.time ?? new Date(0)), tail]);
  frame.writeUInt16BE(frame.length, 9);
  return frame;
}
