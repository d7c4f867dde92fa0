// GT06 (Concox and compatible) message decoding. A frame is
//   78 78 | len(1) | proto | content | serial(2) | crc(2) | 0d 0a   (or 79 79 with len(2))
// and the CRC-16/X25 covers the length field through the serial number. Positions are
// acknowledged with 78 78 05 <proto> <serial> <crc> 0d 0a.
import { crc16X25 } from '../crc.js';
import { Reader, Truncated, emptyWhenTruncated, utcDate } from '../reader.js';
import type { Alarm, Telemetry } from '../../positions/telemetry.js';
import type { DecodedPosition, DecodeResult } from '../types.js';

export const MSG = {
  LOGIN: 0x01,
  GPS: 0x10,
  GPS_LBS_6: 0x11,
  GPS_LBS_1: 0x12,
  STATUS: 0x13,
  STRING: 0x15,
  GPS_LBS_STATUS_1: 0x16,
  GPS_LBS_STATUS_2: 0x26,
  GPS_LBS_STATUS_3: 0x27,
  STRING_INFO: 0x21,
  GPS_LBS_2: 0x22,
  GPS_LBS_3: 0x37,
  GPS_LBS_4: 0x2d,
  GPS_PHONE: 0x1a,
  GPS_LBS_EXTEND: 0x1e,
  GPS_LBS_5: 0x31,
  GPS_LBS_STATUS_4: 0x32,
  GPS_4G: 0xa0,
  FENCE_SINGLE: 0xa3,
  FENCE_MULTI: 0xa4,
  COMMAND: 0x80,
} as const;

/** Alarm byte values from the GT06 manual (status-carrying messages). */
const ALARMS: Record<number, Alarm> = {
  0x01: 'sos',
  0x02: 'powerCut',
  0x03: 'vibration',
  0x04: 'geofenceEnter',
  0x05: 'geofenceExit',
  0x06: 'overspeed',
  0x09: 'vibration',
  0x0e: 'lowBattery',
  0x0f: 'lowBattery',
  0x11: 'powerOff',
  0x13: 'tampering',
  0x14: 'door',
  0x19: 'lowBattery',
  0x29: 'hardAcceleration',
  0x2a: 'hardCornering',
  0x2b: 'hardCornering',
  0x2c: 'accident',
  0x30: 'hardBraking',
};

/** Alarm bits 3..5 of the terminal-information byte. */
const STATUS_ALARMS: Record<number, Alarm> = {
  1: 'vibration',
  2: 'powerCut',
  3: 'lowBattery',
  4: 'sos',
  7: 'removing',
};

/** Messages whose body starts with the 18-byte GPS block (date, sats, lat, lng, speed, course). */
const GPS_TYPES = new Set<number>([
  MSG.GPS,
  MSG.GPS_LBS_6,
  MSG.GPS_LBS_1,
  MSG.GPS_LBS_STATUS_1,
  MSG.GPS_LBS_STATUS_2,
  MSG.GPS_LBS_STATUS_3,
  MSG.GPS_LBS_2,
  MSG.GPS_LBS_3,
  MSG.GPS_LBS_4,
  MSG.GPS_PHONE,
  MSG.GPS_LBS_EXTEND,
  MSG.GPS_LBS_5,
  MSG.GPS_LBS_STATUS_4,
  MSG.GPS_4G,
  MSG.FENCE_SINGLE,
  MSG.FENCE_MULTI,
]);
/** Of those, the ones followed by a cell (LBS) block without a length prefix. */
const LBS_TYPES = new Set<number>([
  MSG.GPS_LBS_6,
  MSG.GPS_LBS_1,
  MSG.GPS_LBS_2,
  MSG.GPS_LBS_3,
  MSG.GPS_LBS_4,
  MSG.GPS_LBS_5,
  MSG.GPS_4G,
  MSG.FENCE_SINGLE,
  MSG.FENCE_MULTI,
]);
/** And the ones followed by a length-prefixed LBS block and the status bytes. */
const STATUS_TYPES = new Set<number>([
  MSG.GPS_LBS_STATUS_1,
  MSG.GPS_LBS_STATUS_2,
  MSG.GPS_LBS_STATUS_3,
  MSG.GPS_LBS_STATUS_4,
]);
/** Device-bound commands and the extended command reply are the only messages not acknowledged. */
const NOT_ACKED = new Set<number>([MSG.STRING_INFO, MSG.COMMAND, 0x81, 0x82]);

export function buildAck(proto: number, serial: number): Buffer {
  const out = Buffer.from([0x78, 0x78, 0x05, proto, serial >> 8, serial & 0xff, 0, 0, 0x0d, 0x0a]);
  out.writeUInt16BE(crc16X25(out, 2, 6), 6);
  return out;
}

export const decodeGt06 = emptyWhenTruncated(decodeFrame);

function decodeFrame(frame: Buffer): DecodeResult {
  const extended = frame[0] === 0x79;
  const headerLen = extended ? 4 : 3;
  // Serial, CRC and terminator sit at fixed offsets from the end; the body is what remains.
  if (frame.length < headerLen + 1 + 6) return { positions: [] };
  const tail = frame.length - 6;
  const serial = frame.readUInt16BE(tail);
  const badChecksum = frame.readUInt16BE(tail + 2) !== crc16X25(frame, 2, tail + 2);
  const proto = frame[headerLen]!;
  // Some firmwares declare a length that does not match what they send (often leaving out
  // serial and CRC); their body then runs up to the terminator.
  const declared = extended ? frame.readUInt16BE(2) : frame[2]!;
  const regular = headerLen + declared + 2 === frame.length;
  const r = new Reader(frame, headerLen + 1, regular ? tail : frame.length - 2);
  const result: DecodeResult = { positions: [] };
  if (badChecksum) result.badChecksum = true;
  // Devices resend unacknowledged messages, including types we do not decode.
  if (!NOT_ACKED.has(proto)) result.reply = buildAck(proto, serial);

  if (proto === MSG.LOGIN) {
    // IMEI as 8 BCD bytes: a padding nibble, then 15 digits.
    const imei = r.bytes(8).toString('hex').slice(1);
    if (/^\d{15}$/.test(imei)) result.identity = imei;
    else delete result.reply; // nothing to accept
    return result;
  }
  if (proto === MSG.STATUS) {
    result.heartbeat = true;
    // Terminal info, voltage (1 byte, 2 on some models), GSM signal, alarm, language: an SOS
    // pressed without a fix arrives here.
    const attributes: Telemetry = {};
    try {
      decodeStatus(r, attributes, r.remaining === 6);
    } catch (err) {
      if (!(err instanceof Truncated)) throw err;
    }
    if (Object.keys(attributes).length > 0) result.attributes = attributes;
    return result;
  }
  if (proto === MSG.STRING) {
    const len = r.u8();
    r.skip(4); // server flag echoed from the command
    result.commandReply = r.bytes(Math.max(0, len - 4)).toString('ascii');
    const position = parseLocationReply(result.commandReply);
    if (position) result.positions.push(position);
    return result;
  }
  if (proto === MSG.STRING_INFO) {
    r.skip(4); // server flag
    const encoding = r.u8();
    const text = r.bytes(r.remaining);
    result.commandReply = encoding === 1 ? text.toString('ascii') : utf16be(text);
    const position = parseLocationReply(result.commandReply);
    if (position) result.positions.push(position);
    return result;
  }
  // In 79 79 framing these numbers carry other, model-specific layouts.
  if (!GPS_TYPES.has(proto) || (extended && proto === MSG.GPS_LBS_STATUS_4)) {
    // Valid frame of a type we do not use: still a sign of life.
    result.heartbeat = true;
    return result;
  }

  const position = decodeGps(r);
  // Without a usable GPS block the status bytes (an alarm) still count.
  const attributes = position?.attributes ?? {};
  try {
    decodeAfterGps(r, proto, attributes);
  } catch (err) {
    // A complete fix followed by a cut-off cell/status block is still a fix.
    if (!(err instanceof Truncated)) throw err;
  }
  if (position) result.positions.push(position);
  else if (Object.keys(attributes).length > 0) result.attributes = attributes;
  return result;
}

/** Cell block, status bytes, ACC/upload-reason bytes and odometer, depending on the type. */
function decodeAfterGps(r: Reader, proto: number, a: Telemetry): void {
  if (LBS_TYPES.has(proto)) {
    skipCell(r, proto === MSG.GPS_LBS_6);
  } else if (STATUS_TYPES.has(proto)) {
    const length = r.u8();
    if (length > 0) skipCell(r, false);
    if (length > 9) r.skip(length - 9); // extra bytes announced after the cell id
    // Status is terminal info, voltage, GSM, alarm, language (+ geofence on 0x27); one byte
    // more means the firmware sends a 2-byte voltage.
    const wideVoltage = r.remaining === (proto === MSG.GPS_LBS_STATUS_3 ? 7 : 6);
    decodeStatus(r, a, wideVoltage);
  }
  if ((proto === MSG.GPS_LBS_2 || proto === MSG.GPS_LBS_3 || proto === MSG.GPS_LBS_4) && r.remaining >= 3) {
    a.ignition = r.u8() > 0;
    a.event = r.u8(); // upload reason
    a.archive = r.u8() > 0; // re-uploaded from device memory
  }
  if (r.remaining === 4) a.odometer = r.u32();
}

/** Date, satellites, coordinates, speed and the course/status word shared by GPS messages. */
function decodeGps(r: Reader): DecodedPosition | null {
  const [yy, mo, dd, hh, mi, ss] = [r.u8(), r.u8(), r.u8(), r.u8(), r.u8(), r.u8()];
  const satellites = r.u8() & 0x0f;
  // Coordinates are in units of 1/30000 minute.
  let lat = r.u32() / 30000 / 60;
  let lng = r.u32() / 30000 / 60;
  const speed = r.u8();
  const flags = r.u16();
  const time = utcDate(2000 + yy, mo, dd, hh, mi, ss);
  if (!time || lat > 90 || lng > 180) return null;
  if (!(flags & 0x0400)) lat = -lat; // bit 10 set = north
  if (flags & 0x0800) lng = -lng; // bit 11 set = west
  const attributes: Telemetry = {};
  // Bit 14 says whether bit 15 carries the ACC (ignition) line.
  if (flags & 0x4000) attributes.ignition = (flags & 0x8000) !== 0;
  return {
    deviceTime: time,
    valid: (flags & 0x1000) !== 0,
    lat,
    lng,
    speed,
    heading: flags & 0x03ff,
    satellites,
    attributes,
  };
}

/**
 * Cell block: MCC, MNC (2 bytes when the MCC's top bit is set, and in 0x11), LAC, cell id
 * (4 bytes in 0x11, otherwise 3). Cell data is not used for positions, only stepped over.
 */
function skipCell(r: Reader, wide: boolean): void {
  const mcc = r.u16();
  r.skip((wide || mcc & 0x8000 ? 2 : 1) + 2 + (wide ? 4 : 3));
}

/** Terminal information, voltage, GSM signal and alarm bytes. */
function decodeStatus(r: Reader, a: Telemetry, wideVoltage: boolean): void {
  const info = r.u8();
  a.ignition = (info & 0x02) !== 0;
  a.charge = (info & 0x04) !== 0;
  a.blocked = (info & 0x80) !== 0;
  const statusAlarm = STATUS_ALARMS[(info >> 3) & 0x07];
  if (wideVoltage) {
    // 2-byte field: a percentage on some models, centivolts of external power on others.
    const value = r.u16();
    if (value <= 100) a.batteryLevel = value;
    else a.power = value / 100;
  } else {
    // A 0..6 level on the original GT06; newer models send the percentage directly.
    const level = r.u8();
    a.batteryLevel = level <= 6 ? Math.floor((level * 100) / 6) : Math.min(level, 100);
  }
  a.rssi = r.u8();
  const alarm = ALARMS[r.u8()] ?? statusAlarm;
  if (alarm) a.alarm = alarm;
}

/**
 * The answer to WHERE# is text such as
 * "Current position!Lat:N1.234567,Lon:E2.345678,Course:90.00,Speed:0.00Km/h,DateTime:2024-01-02 03:04:05";
 * it is the located fix, so it becomes a position too.
 */
const LOCATION_REPLY =
  /Lat:([NS])(\d+(?:\.\d+)?),Lon:([EW])(\d+(?:\.\d+)?),Course:(\d+(?:\.\d+)?),Speed:(\d+(?:\.\d+)?)(?:Km\/h)?,DateTime:(\d{4})-(\d\d)-(\d\d)\s+(\d\d):(\d\d):(\d\d)/;

function parseLocationReply(text: string): DecodedPosition | null {
  const m = LOCATION_REPLY.exec(text);
  if (!m) return null;
  const n = (i: number) => Number(m[i]);
  const time = utcDate(n(7), n(8), n(9), n(10), n(11), n(12));
  const lat = n(2) * (m[1] === 'S' ? -1 : 1);
  const lng = n(4) * (m[3] === 'W' ? -1 : 1);
  if (!time || Math.abs(lat) > 90 || Math.abs(lng) > 180) return null;
  return { deviceTime: time, valid: true, lat, lng, speed: n(6), heading: n(5) % 360, attributes: {} };
}

function utf16be(bytes: Buffer): string {
  const swapped = Buffer.from(bytes.subarray(0, bytes.length & ~1));
  return swapped.swap16().toString('utf16le');
}
