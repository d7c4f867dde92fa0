// Suntech binary reports.
//   0x81 / 0x82 (universal binary; 0x82 carries an alert): type, length (2), id (5 bytes read as
//   hex digits), a 3-byte mask, then the fields the mask selects, as in the universal text form.
//   0x02 (compressed "zip" ST300 report): length (2), type 0x10, id (the first 9 hex digits of 5
//   bytes), model, firmware, date/time, cell, the fix with BCD fractions, odometer, power, I/O, event.
import { addAlarm, type Telemetry } from '../../positions/telemetry.js';
import { Reader, TRUNCATED, utcDate } from '../reader.js';
import type { DecodedPosition, DecodeResult } from '../types.js';
import { alertAlarm } from './alarms.js';

const bit = (mask: number, n: number) => (mask & (1 << n)) !== 0;

/** A sign-and-magnitude 32-bit integer (bit 31 is the sign). */
function signedMagnitude(r: Reader): number {
  const v = r.u32();
  return v & 0x80000000 ? -(v & 0x7fffffff) : v;
}

function dateTime(r: Reader): Date {
  const [y, mo, d, h, mi, s] = [r.u8(), r.u8(), r.u8(), r.u8(), r.u8(), r.u8()];
  const date = utcDate(2000 + y, mo, d, h, mi, s);
  if (!date) throw TRUNCATED;
  return date;
}

export function decodeBinary(frame: Buffer): DecodeResult {
  const r = new Reader(frame, 3);
  const type = frame[0]!;
  const identity = r.bytes(5).toString('hex');
  const mask = r.u24();
  const io: Record<string, string | number> = {};
  const attributes: Telemetry = { io };
  const position: DecodedPosition = { deviceTime: new Date(), valid: false, lat: 0, lng: 0, speed: 0, heading: 0, attributes };
  let timed = false;
  if (bit(mask, 1)) r.u8(); // model
  if (bit(mask, 2)) io.versionFw = [r.u8(), r.u8(), r.u8()].join('.');
  if (bit(mask, 3) && r.u8() === 0) attributes.archive = true;
  if (bit(mask, 4) && bit(mask, 5)) {
    position.deviceTime = dateTime(r);
    timed = true;
  }
  if (bit(mask, 6)) r.u32(); // cell
  if (bit(mask, 7)) r.u16(); // mcc
  if (bit(mask, 8)) r.u16(); // mnc
  if (bit(mask, 9)) r.u16(); // lac
  if (bit(mask, 10)) attributes.rssi = r.u8();
  if (bit(mask, 11)) position.lat = signedMagnitude(r) / 1e6;
  if (bit(mask, 12)) position.lng = signedMagnitude(r) / 1e6;
  if (bit(mask, 13)) position.speed = r.u16() / 100;
  if (bit(mask, 14)) position.heading = r.u16() / 100;
  if (bit(mask, 15)) position.satellites = r.u8();
  if (bit(mask, 16)) position.valid = r.u8() > 0;
  if (bit(mask, 17)) {
    const input = r.u8();
    attributes.ignition = (input & 1) !== 0;
    attributes.input = input;
  }
  if (bit(mask, 18)) attributes.output = r.u8();
  let alertId = 0;
  if (bit(mask, 19)) {
    alertId = r.u8();
    io.alert = alertId;
    const alarm = type === 0x82 ? alertAlarm(alertId) : undefined;
    if (alarm) addAlarm(attributes, alarm);
  }
  if (bit(mask, 20)) r.u16(); // alert modifier
  // Alert 59 is a driver identification: the key's 8 bytes follow.
  if (bit(mask, 21) && alertId === 59) attributes.driverUniqueId = r.bytes(8).toString('hex');
  if (!timed || !bit(mask, 11) || !bit(mask, 12)) return { identity, positions: [], attributes };
  return { identity, positions: [position] };
}

/** BCD digits as a number (`digits` of them, two per byte). */
function bcd(r: Reader, digits: number): number {
  let value = 0;
  for (let i = 0; i < digits / 2; i++) {
    const b = r.u8();
    if ((b >> 4) > 9 || (b & 15) > 9) throw TRUNCATED;
    value = value * 100 + (b >> 4) * 10 + (b & 15);
  }
  return value;
}

export function decodeCompressed(frame: Buffer): DecodeResult {
  const r = new Reader(frame, 3);
  if (r.u8() !== 0x10) return { positions: [] };
  const identity = r.bytes(5).toString('hex').slice(0, 9);
  r.skip(3); // model, software version
  const deviceTime = dateTime(r);
  r.skip(3); // lac, cid
  let lat = r.u8() + bcd(r, 6) / 1e6;
  let lng = r.u8() + bcd(r, 6) / 1e6;
  const speed = r.u16() + bcd(r, 2) / 100;
  const heading = r.u16() + bcd(r, 2) / 100;
  const flags = r.u8();
  if (flags & 0x40) lat = -lat;
  if (flags & 0x20) lng = -lng;
  const attributes: Telemetry = { odometer: r.u32(), power: r.u8() + bcd(r, 2) / 100 };
  const io = r.u8();
  attributes.ignition = (io & 1) !== 0;
  [1, 2, 3].forEach((i) => (attributes[`in${i}`] = bit(io, i)));
  [1, 2].forEach((i) => (attributes[`out${i}`] = bit(io, i + 3)));
  attributes.event = r.u8();
  return { identity, positions: [{ deviceTime, valid: (flags & 0x80) !== 0, lat, lng, speed, heading, attributes }] };
}
