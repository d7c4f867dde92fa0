// Queclink @Track binary reports (the compact form of the same messages, chosen on the unit with
// AT+GTCFG). Legacy form: a four-character header, a message type byte, a 32-bit field mask, the
// length, then fixed fields; the decoder reads the layout of the default mask (FC1FBF…), as
// Traccar does. Newer form: '+', NUL, length, then records of tagged data items (0x52: a GNSS fix).
// Positions only; units are sent nothing back.
import { Reader, utcDate } from '../reader.js';
import type { Telemetry } from '../../positions/telemetry.js';
import type { DecodedPosition, DecodeResult, ProtocolState } from '../types.js';

/** +RSP message types with extra fields or another layout. */
const RSP_LCB = 3;
const RSP_GEO = 8;
const RSP_COMPRESSED = 100;
/** +EVT message types and the bytes of type-specific data before the fix. */
const EVT_EXTRA: Record<number, number> = { 6: 2, 45: 7, 46: 7, 15: 3, 17: 4, 21: 5, 26: 12, 31: 2, 35: 1, 33: 1, 23: 1, 34: 3 };
/** +INF message types with extra fields. */
const INF_VER = 6;
const INF_BAT = 7;
/** The newer form's GNSS data item. */
const ITEM_FIX = 0x52;

export function decodeBinary(frame: Buffer, _conn: ProtocolState): DecodeResult {
  const r = new Reader(frame);
  if (frame[1] === 0) return decodeTagged(r);
  const header = frame.toString('latin1', 0, 4);
  r.skip(4);
  if (header === '+RSP' || header === '+BSP') return decodeReport(r, false);
  if (header === '+EVT' || header === '+BVT') return decodeReport(r, true);
  if (header === '+INF' || header === '+BNF') return decodeInfo(r);
  return { positions: [] };
}

/** The 15-digit IMEI a legacy report carries as a 64-bit number. */
function imei(r: Reader): string | undefined {
  const id = r.u64().toString().padStart(15, '0');
  return id.length === 15 ? id : undefined;
}

function time(r: Reader): Date | null {
  return utcDate(r.u16(), r.u8(), r.u8(), r.u8(), r.u8(), r.u8());
}

/** A fix: HDOP, speed (0.1 km/h), course, altitude, longitude, latitude (1e-6°), time, cell, reserved. */
function fix(r: Reader, attributes: Telemetry, satellites: number): DecodedPosition | null {
  const hdop = r.u8();
  const speed = r.u24() / 10;
  const heading = r.u16();
  const altitude = r.i16();
  const lng = r.i32() / 1e6;
  const lat = r.i32() / 1e6;
  const deviceTime = time(r);
  const [mcc, mnc, lac, cellId] = [r.u16(), r.u16(), r.u16(), r.u16()];
  r.skip(1);
  if (!deviceTime) return null;
  const network = mcc ? { cellTowers: [{ mobileCountryCode: mcc, mobileNetworkCode: mnc, locationAreaCode: lac, cellId }] } : undefined;
  return {
    deviceTime, valid: hdop > 0, lat, lng, speed, heading: heading <= 360 ? heading : 0, altitude, satellites,
    attributes: { ...attributes, ...(hdop ? { hdop } : {}), ...(network ? { network } : {}) },
  };
}

/** +RSP (positions, maybe several) and +EVT (one event with its fix). */
function decodeReport(r: Reader, event: boolean): DecodeResult {
  const type = r.u8();
  r.skip(4 + 2 + 1 + 2 + 2); // mask, length, device type, protocol and firmware versions
  const identity = imei(r);
  const attributes: Telemetry = { batteryLevel: r.u8(), power: r.u16() / 1000 };
  if (attributes.batteryLevel! > 100) delete attributes.batteryLevel;
  if (!event && type === RSP_GEO) r.skip(2);
  r.skip(1); // motion status
  const satellites = r.u8();
  const result: DecodeResult = { positions: [], ...(identity ? { identity } : {}) };
  if (event) {
    r.skip((EVT_EXTRA[type] ?? 0) + 1); // type-specific data, count
    const p = fix(r, attributes, satellites);
    if (p) result.positions.push(p);
    return result;
  }
  if (type === RSP_COMPRESSED) {
    result.positions = compressed(r, attributes);
    return result;
  }
  r.skip(1); // index
  if (type === RSP_LCB) {
    r.skip(1); // phone number length, then BCD digits up to an F nibble
    for (let b = r.u8(); (b & 0x0f) !== 0x0f && (b & 0xf0) !== 0xf0; b = r.u8());
  }
  for (let count = r.u8(); count > 0; count -= 1) {
    const p = fix(r, attributes, satellites);
    if (p) result.positions.push(p);
  }
  return result;
}

/**
 * The compressed +RSP (type 100): a first point in full (speed 0.1 km/h and course in 21 bits,
 * longitude, latitude, Unix time), then points as differences, one second apart.
 */
function compressed(r: Reader, attributes: Telemetry): DecodedPosition[] {
  const positions: DecodedPosition[] = [];
  let speed = 0;
  let heading = 0;
  let lng = 0;
  let lat = 0;
  let seconds = 0;
  for (let count = r.u16(); count > 0; count -= 1) {
    if (seconds) seconds += 1;
    const kind = r.buf[r.pos]! >> 6;
    if (kind === 1) {
      const bits = r.u24();
      speed = (bits >> 9) & 0xfff;
      heading = bits & 0x1ff;
      lng = r.i32();
      lat = r.i32();
      if (!seconds) seconds = r.u32();
    } else if (kind === 2) {
      const bits = r.bytes(5).readUIntBE(0, 5);
      const signed = (value: number, width: number) => (value >= 2 ** (width - 1) ? value - 2 ** width : value);
      speed += signed(Math.floor(bits / 2 ** 30) % 2 ** 7, 7);
      heading += signed(Math.floor(bits / 2 ** 23) % 2 ** 7, 7);
      lng += signed(Math.floor(bits / 2 ** 11) % 2 ** 12, 12);
      lat += signed(bits % 2 ** 11, 11);
    } else {
      r.skip(1); // a point with no fix, or the same as the last
      continue;
    }
    const position = { deviceTime: new Date(seconds * 1000), valid: true, lat: lat / 1e6, lng: lng / 1e6, speed: Math.max(0, speed / 10), heading: heading >= 0 && heading <= 360 ? heading : 0 };
    positions.push({ ...position, attributes: { ...attributes } });
  }
  return positions;
}

/** +INF: the unit's state and firmware version, no location. */
function decodeInfo(r: Reader): DecodeResult {
  const type = r.u8();
  r.skip(4 + 2); // mask, length
  const identity = imei(r);
  r.skip(1 + 2); // device type, protocol version
  const attributes: Telemetry = { io: { versionFw: r.u16() } };
  if (type === INF_VER) r.skip(6);
  r.skip(2); // motion status, reserved
  r.skip(1); // satellites
  r.skip(1 + 7 + 2 + 2 + 2 + 2 + 4 + 1); // mode, last fix time, reserved, report mask, intervals, reserved
  if (type === INF_BAT) {
    attributes.charge = r.u8() !== 0;
    attributes.power = r.u16() / 1000;
    attributes.battery = r.u16() / 1000;
    const level = r.u8();
    if (level <= 100) attributes.batteryLevel = level;
  }
  const iccid = r.bytes(10).toString('hex');
  if (/^\d{19,20}f?$/.test(iccid)) attributes.iccid = iccid.replace(/f$/, '');
  return { positions: [], attributes, ...(identity ? { identity } : {}) };
}

/** The newer form: records of data items; each GNSS item (0x52) is a position. */
function decodeTagged(r: Reader): DecodeResult {
  r.skip(2);
  const end = r.u16() - 4; // count number, check byte and tail
  if (r.u8() & 0x80) r.skip(2); // multi-packet: frame count and number
  const identity = r.bytes(8).toString('hex').slice(1);
  r.skip(2 + 2 + 1); // device type, protocol version, custom version
  r.skip(r.u8()); // reserved
  const result: DecodeResult = { positions: [], ...(/^\d{15}$/.test(identity) ? { identity } : {}) };
  while (r.pos < end) {
    const recordStart = r.pos;
    const recordEnd = recordStart + variableLength(r);
    if (recordEnd <= r.pos) break; // a zero length would never move on
    r.skip(4 + 2 + 1 + 1); // generated time, record count, record id, event code
    while (r.pos < recordEnd) {
      const id = variableLength(r);
      const itemEnd = r.pos + variableLength(r);
      if (id === ITEM_FIX) result.positions.push(gnss(r));
      r.pos = itemEnd;
    }
    r.pos = recordEnd;
  }
  return result;
}

/** GNSS item: fix type, longitude, latitude, Unix time, speed (0.1 km/h), HDOP, course, altitude, satellites. */
function gnss(r: Reader): DecodedPosition {
  const valid = ((r.u8() >> 2) & 0x03) === 0b10;
  const lng = r.i32() / 1e6;
  const lat = r.i32() / 1e6;
  const deviceTime = new Date(r.u32() * 1000);
  const speed = r.u16() / 10;
  const hdop = r.u8() / 10;
  const heading = r.u16();
  const altitude = r.u24() / 10;
  const satellites = r.u8();
  return { deviceTime, valid, lat, lng, speed, heading: heading <= 360 ? heading : 0, altitude, satellites, attributes: hdop ? { hdop } : {} };
}

/** A length or id of one byte, or two when the first byte's top bit is set. */
function variableLength(r: Reader): number {
  const first = r.u8();
  return first & 0x80 ? ((first & 0x7f) << 8) | r.u8() : first;
}
