// GT06 frames the way Concox trackers send them (GT06 protocol manual): login 0x01,
// GPS+LBS 0x12/0x22, status 0x13, alarm 0x16, LBS alarm 0x19, cell report 0x28 and the command
// reply 0x21.
import { crc16X25 } from '../../protocols/crc.js';
import type { DeviceAlarm, DeviceFix, DeviceState } from './fix.js';

const ALARM_CODES: Record<DeviceAlarm, number> = {
  sos: 0x01,
  powerCut: 0x02,
  vibration: 0x03,
  overspeed: 0x06,
  lowBattery: 0x0e,
};

/** China Mobile test cell used by the manual's examples; any valid cell works. */
const LBS = Buffer.from([0x01, 0xcc, 0x00, 0x28, 0x7d, 0x00, 0x1f, 0xb8]);

/** Wraps a body: header, length, protocol number, body, serial, CRC-16/X25, 0d 0a. */
export function gt06Frame(proto: number, body: Buffer, serial: number, extended = false): Buffer {
  const length = 1 + body.length + 2 + 2;
  const head = extended ? Buffer.from([0x79, 0x79, length >> 8, length & 0xff]) : Buffer.from([0x78, 0x78, length]);
  const tail = Buffer.from([serial >> 8, serial & 0xff]);
  const content = Buffer.concat([head, Buffer.from([proto]), body, tail]);
  const crc = Buffer.alloc(2);
  crc.writeUInt16BE(crc16X25(content, 2));
  return Buffer.concat([content, crc, Buffer.from([0x0d, 0x0a])]);
}

/** Login: the IMEI as 8 BCD bytes (a leading 0 pads the 15 digits). */
export function gt06Login(imei: string, serial = 1): Buffer {
  return gt06Frame(0x01, Buffer.from(imei.padStart(16, '0'), 'hex'), serial);
}

/** Date, satellites, coordinates, speed and course/status word. */
export function gt06GpsBlock(fix: DeviceFix, ignition?: boolean): Buffer {
  const t = fix.time;
  const out = Buffer.alloc(18);
  out.set([t.getUTCFullYear() - 2000, t.getUTCMonth() + 1, t.getUTCDate(), t.getUTCHours(), t.getUTCMinutes(), t.getUTCSeconds()]);
  // High nibble: length of the GPS information (12); low nibble: satellites.
  out[6] = 0xc0 | Math.min(fix.satellites ?? 8, 15);
  out.writeUInt32BE(Math.round(Math.abs(fix.lat) * 60 * 30000), 7);
  out.writeUInt32BE(Math.round(Math.abs(fix.lng) * 60 * 30000), 11);
  out[15] = Math.min(Math.round(fix.speed), 255);
  let word = Math.round(fix.heading) % 360;
  if (fix.lat >= 0) word |= 0x0400;
  if (fix.lng < 0) word |= 0x0800;
  if (fix.valid ?? true) word |= 0x1000;
  if (ignition !== undefined) word |= 0x4000 | (ignition ? 0x8000 : 0);
  out.writeUInt16BE(word, 16);
  return out;
}

/** Position report 0x22 (GPS, LBS, ACC, upload mode, re-upload flag). */
export function gt06Position(fix: DeviceFix, state: DeviceState = {}, serial = 1): Buffer {
  const acc = Buffer.from([state.ignition ? 1 : 0, 0x00, 0x00]);
  return gt06Frame(0x22, Buffer.concat([gt06GpsBlock(fix, state.ignition), LBS, acc]), serial);
}

/** Older position report 0x12 (GPS and LBS only). */
export function gt06PositionLegacy(fix: DeviceFix, serial = 1): Buffer {
  return gt06Frame(0x12, Buffer.concat([gt06GpsBlock(fix), LBS]), serial);
}

/** Terminal information byte: bit 1 ACC, bit 2 charging, bits 3..5 alarm. */
function terminalInfo(state: DeviceState): number {
  const alarmBits: Partial<Record<DeviceAlarm, number>> = { vibration: 1, powerCut: 2, lowBattery: 3, sos: 4 };
  return (state.ignition ? 0x02 : 0) | 0x04 | ((state.alarm ? alarmBits[state.alarm] ?? 0 : 0) << 3);
}

/** Battery percent to the manual's 0..6 voltage level. */
function voltageLevel(state: DeviceState): number {
  return Math.round(((state.batteryLevel ?? 100) * 6) / 100);
}

/** Status/heartbeat 0x13: terminal info, voltage level, GSM signal, alarm, language. */
export function gt06Heartbeat(state: DeviceState = {}, serial = 1): Buffer {
  return gt06Frame(0x13, Buffer.from([terminalInfo(state), voltageLevel(state), 0x04, 0x00, 0x02]), serial);
}

/** Alarm 0x16: GPS, length-prefixed LBS, terminal info, voltage, GSM, alarm, language. */
export function gt06Alarm(fix: DeviceFix, alarm: DeviceAlarm, state: DeviceState = {}, serial = 1): Buffer {
  const status = Buffer.from([terminalInfo({ ...state, alarm }), voltageLevel(state), 0x04, ALARM_CODES[alarm], 0x02]);
  return gt06Frame(0x16, Buffer.concat([gt06GpsBlock(fix), Buffer.from([LBS.length + 1]), LBS, status]), serial);
}

/** LBS + status 0x19: an alarm raised without a GPS fix, located only by its cell. */
export function gt06LbsAlarm(alarm: DeviceAlarm, state: DeviceState = {}, serial = 1): Buffer {
  const status = Buffer.from([terminalInfo({ ...state, alarm }), voltageLevel(state), 0x04, ALARM_CODES[alarm], 0x02]);
  return gt06Frame(0x19, Buffer.concat([LBS, status]), serial);
}

/** A cell the device hears: LAC, cell id and signal (dBm) on the manual's network (MCC 460, MNC 0). */
export interface HeardCell {
  lac: number;
  cellId: number;
  dbm: number;
}

/**
 * Multiple-cell report 0x28 (no GPS): time, MCC, MNC, seven cell slots (LAC, 3-byte cell id,
 * signal as -dBm; unused slots zero) and the timing advance.
 */
export function gt06CellReport(time: Date, cells: HeardCell[], serial = 1): Buffer {
  const body = Buffer.alloc(6 + 3 + 7 * 6 + 1);
  body.set([time.getUTCFullYear() - 2000, time.getUTCMonth() + 1, time.getUTCDate(), time.getUTCHours(), time.getUTCMinutes(), time.getUTCSeconds()]);
  LBS.copy(body, 6, 0, 3); // MCC, MNC
  cells.slice(0, 7).forEach((c, i) => {
    const at = 9 + i * 6;
    body.writeUInt16BE(c.lac, at);
    body.writeUIntBE(c.cellId, at + 2, 3);
    body[at + 5] = -c.dbm;
  });
  return gt06Frame(0x28, body, serial);
}

/** Command reply 0x21: server flag echoed from the command, encoding 1 (ASCII), text. */
export function gt06CommandReply(text: string, serverFlag: number, serial = 1): Buffer {
  const body = Buffer.alloc(5 + Buffer.byteLength(text, 'ascii'));
  body.writeUInt32BE(serverFlag >>> 0, 0);
  body[4] = 0x01;
  body.write(text, 5, 'ascii');
  return gt06Frame(0x21, body, serial, true);
}

/** The text a tracker answers WHERE# with. */
export function gt06WhereReply(fix: DeviceFix): string {
  const iso = fix.time.toISOString();
  const lat = `${fix.lat >= 0 ? 'N' : 'S'}${Math.abs(fix.lat).toFixed(6)}`;
  const lng = `${fix.lng >= 0 ? 'E' : 'W'}${Math.abs(fix.lng).toFixed(6)}`;
  return `Current position!Lat:${lat},Lon:${lng},Course:${fix.heading.toFixed(2)},Speed:${fix.speed.toFixed(2)}Km/h,DateTime:${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
}
