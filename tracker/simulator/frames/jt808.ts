// JT/T 808 frames the way a terminal sends them (JT/T 808-2019): registration 0x0100, auth 0x0102,
// heartbeat 0x0002, location report 0x0200 with mileage/fuel/signal/satellite items, and the
// terminal's answers to commands: the general answer 0x0001 and the position answer 0x0201. The simulator speaks the 2019 header, whose
// 10-byte number holds a 15-digit IMEI.
import { buildMessage } from '../../protocols/jt808/message.js';
import type { DeviceAlarm, DeviceFix, DeviceState } from './fix.js';

const ALARM_BITS: Record<DeviceAlarm, number> = { sos: 0, overspeed: 1, lowBattery: 7, powerCut: 8, vibration: 15 };

/** The id as the 2019 header's 10 BCD bytes. */
export function jt808Terminal(id: string): Buffer {
  return Buffer.from(id.padStart(20, '0'), 'hex');
}

function message(type: number, id: string, serial: number, body: Buffer): Buffer {
  return buildMessage(type, jt808Terminal(id), serial, body, 1);
}

/** Registration: province, city, maker, model, terminal id, plate colour, plate (left empty). */
export function jt808Register(id: string, serial = 1): Buffer {
  const body = Buffer.alloc(2 + 2 + 11 + 30 + 30 + 1);
  body.write('SIM', 4, 'ascii');
  body.write('SIM-808', 15, 'ascii');
  return message(0x0100, id, serial, body);
}

/** Authentication with the code the registration answer carried (2019: length-prefixed, then IMEI and version). */
export function jt808Auth(id: string, code: string, serial = 2): Buffer {
  const codeBytes = Buffer.from(code, 'ascii');
  const body = Buffer.concat([Buffer.from([codeBytes.length]), codeBytes, Buffer.from(id.padEnd(15, '0').slice(0, 15), 'ascii'), Buffer.alloc(20)]);
  return message(0x0102, id, serial, body);
}

export function jt808Heartbeat(id: string, serial = 1): Buffer {
  return message(0x0002, id, serial, Buffer.alloc(0));
}

/** The fixed location block and items 0x01 mileage (0.1 km), 0x02 fuel (0.1 L), 0x30 signal, 0x31 satellites. */
export function jt808Position(id: string, fix: DeviceFix, state: DeviceState = {}, serial = 1, odometerKm = 0): Buffer {
  return message(0x0200, id, serial, locationBody(fix, state, odometerKm));
}

/** 0x0201: the answer to a position query (0x8201), its serial then the location block. */
export function jt808PositionAnswer(id: string, querySerial: number, fix: DeviceFix, serial = 1): Buffer {
  return message(0x0201, id, serial, Buffer.concat([Buffer.from([querySerial >> 8, querySerial & 0xff]), locationBody(fix, {}, 0)]));
}

function locationBody(fix: DeviceFix, state: DeviceState, odometerKm: number): Buffer {
  const fixed = Buffer.alloc(28);
  fixed.writeUInt32BE(state.alarm ? 2 ** ALARM_BITS[state.alarm] : 0, 0);
  let status = 0;
  if (state.ignition) status |= 0x01;
  if (fix.valid ?? true) status |= 0x02;
  if (fix.lat < 0) status |= 0x04;
  if (fix.lng < 0) status |= 0x08;
  fixed.writeUInt32BE(status, 4);
  fixed.writeUInt32BE(Math.round(Math.abs(fix.lat) * 1e6), 8);
  fixed.writeUInt32BE(Math.round(Math.abs(fix.lng) * 1e6), 12);
  fixed.writeInt16BE(Math.round(fix.altitude ?? 0), 16);
  fixed.writeUInt16BE(Math.round(fix.speed * 10), 18);
  fixed.writeUInt16BE(Math.round(fix.heading) % 360, 20);
  // BCD time on the terminal's Beijing clock (UTC+8).
  const t = new Date(fix.time.getTime() + 8 * 3600_000);
  const fields = [t.getUTCFullYear() % 100, t.getUTCMonth() + 1, t.getUTCDate(), t.getUTCHours(), t.getUTCMinutes(), t.getUTCSeconds()];
  fixed.set(fields.map((v) => Math.floor(v / 10) * 16 + (v % 10)), 22);
  const items = Buffer.alloc(6 + 4 + 3 + 3);
  items.set([0x01, 4], 0);
  items.writeUInt32BE(Math.round(odometerKm * 10), 2);
  items.set([0x02, 2], 6);
  items.writeUInt16BE(Math.round((state.fuelLevel ?? 0) * 10), 8);
  items.set([0x30, 1, 25, 0x31, 1, Math.min(fix.satellites ?? 8, 255)], 10);
  return Buffer.concat([fixed, items]);
}

/** 0x0001: the terminal's answer to a command (its serial and id, result 0 = success). */
export function jt808CommandAnswer(id: string, commandSerial: number, commandType: number, serial = 1, result = 0): Buffer {
  const body = Buffer.alloc(5);
  body.writeUInt16BE(commandSerial, 0);
  body.writeUInt16BE(commandType, 2);
  body[4] = result;
  return message(0x0001, id, serial, body);
}
