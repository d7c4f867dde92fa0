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
