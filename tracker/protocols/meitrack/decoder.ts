// Meitrack decoding. Text reports:
//   $$<flag><len>,<imei>,AAA,<event>,<lat>,<lng>,YYMMDDhhmmss,A|V,<sats>,<gsm>,<km/h>,<course>,
//   <hdop>,<alt>,<odometer m>,<runtime s>,<mcc>|<mnc>|<lac hex>|<cid hex>,<in hex 2><out hex 2>,
//   <analog: adc1|adc2|adc3|battery|power hex, or battery|power|rtc|mcu|gps volts>,<event data>,
//   <reserved>,<protocol>,<fuel>,<temperatures>…*<checksum>\r\n
// Answers to commands share the layout (A10 carries a fix) or carry just a result (C01,OK). Binary
// CCC / CCE packets (binary.ts) carry buffered records. AAC is a keep-alive the unit wants answered.
import { addAlarm, type CellTower, type Telemetry } from '../../positions/telemetry.js';
import { emptyWhenTruncated, utcDate } from '../reader.js';
import { TextFields } from '../text-fields.js';
import { decimal, hexDigit, hexValue, isDigit, twoDigits } from '../text-numbers.js';
import type { DecodedPosition, DecodeResult, ProtocolState } from '../types.js';
import { eventAlarm } from './alarms.js';
import { decodeCcc, decodeCce } from './binary.js';
import { meitrackMessage, meitrackSum } from './checksum.js';

/** Photo transfer: the unit's D03 confirmation and D00 picture chunks (pictures are not stored). */
const PHOTO = new Set(['D00', 'D03']);

export const decodeMeitrack = emptyWhenTruncated((frame: Buffer, _conn: ProtocolState): DecodeResult => {
  const first = frame.indexOf(0x2c);
  const second = first < 0 ? -1 : frame.indexOf(0x2c, first + 1);
  if (frame[0] !== 0x24 || frame[1] !== 0x24 || second < 0) return { positions: [] };
  const identity = frame.toString('latin1', first + 1, second);
  if (!/^\d{1,20}$/.test(identity)) return { positions: [] };
  const type = frame.toString('latin1', second + 1, second + 4);
  // The checksum closes binary packets too ("…*XX\r\n"): their data may hold a '*', the last one is its.
  const star = frame.lastIndexOf(0x2a);
  const result: DecodeResult = { identity, positions: [] };
  if (star >= 0 && frame.length >= star + 3) {
    // Either case of hex digit is accepted.
    const high = hexDigit(frame[star + 1]!);
    const low = hexDigit(frame[star + 2]!);
    result.badChecksum = high < 0 || low < 0 || high * 16 + low !== meitrackSum(frame, star + 1);
  }
  if (type === 'CCC') return { ...result, ...decodeCcc(frame, second + 4, frame.toString('latin1', 2, 3), identity) };
  if (type === 'CCE') return { ...result, ...decodeCce(frame, second + 4) };
  if (type === 'AAC') return { ...result, heartbeat: true, reply: meitrackMessage('z', identity, 'AAC,1') };
  if (PHOTO.has(type)) return { ...result, heartbeat: true };

  const text = frame.toString('latin1', second + 1, star < 0 ? frame.length : star);
  const position = decodeReport(new ReportFields(text));
  if (position) result.positions.push(position);
  // Any other type than a report is the answer to a command: its code and result (D82,0 / C01,OK).
  if (type !== 'AAA' && /^[A-F]\d\d$/.test(type)) {
    result.commandReply = text;
    if (!position) result.attributes = { result: result.commandReply.slice(0, 256) };
  }
  return result;
});

/** A report's comma-separated fields, and the ways its numbers are written. */
class ReportFields extends TextFields {
  constructor(text: string) {
    super(text, ',');
  }

  /** A count that must be a whole number to be stored (a fraction there means a garbled field). */
  whole(k: number): number | null {
    const n = this.decimal(k);
    return n !== null && Number.isInteger(n) ? n : null;
  }
  /** 1 to 8 hex digits, the field's [from, to) when given (cut at its end), else null. */
  hex(k: number, from = 0, to = Infinity): number | null {
    if (!this.has(k)) return null;
    const start = this.start(k);
    const end = Math.min(start + to, this.end(k));
    return end - start - from > 8 ? null : hexValue(this.text, start + from, end);
  }
  /** YYMMDDhhmmss, UTC, of this century. */
  time(k: number): Date | null {
    if (!this.has(k) || this.end(k) - this.start(k) !== 12) return null;
    const at = this.start(k);
    const v = this.text;
    for (let n = at; n < at + 12; n++) if (!isDigit(v.charCodeAt(n))) return null;
    return utcDate(2000 + twoDigits(v, at), twoDigits(v, at + 2), twoDigits(v, at + 4), twoDigits(v, at + 6), twoDigits(v, at + 8), twoDigits(v, at + 10));
  }
}

const num = (v: string | undefined): number | null => (v === undefined ? null : decimal(v));
/** 1 to 8 hex digits, else null. */
const hex = (v: string | undefined): number | null => (v === undefined || v.length > 8 ? null : hexValue(v));

function decodeReport(f: ReportFields): DecodedPosition | null {
  // Some firmwares put a record count before the event.
  let i = f.has(2) && !f.includes(2, '.') ? 2 : 1;
  const event = f.decimal(i++);
  const lat = f.decimal(i++);
  const lng = f.decimal(i++);
  const deviceTime = f.time(i++);
  const validity = f.string(i++);
  const satellites = f.whole(i++);
  const rssi = f.whole(i++);
  const speed = f.decimal(i++);
  const heading = f.decimal(i++);
  const hdop = f.decimal(i++);
  const altitude = f.decimal(i++);
  const odometer = f.decimal(i++);
  const runtime = f.decimal(i++);
  if (event === null || lat === null || lng === null || !deviceTime || (validity !== 'A' && validity !== 'V') || speed === null || heading === null) return null;

  const attributes: Telemetry = { event, io: {} };
  const alarm = eventAlarm(event);
  if (alarm) addAlarm(attributes, alarm);
  if (rssi !== null) attributes.rssi = rssi;
  if (hdop !== null) attributes.hdop = hdop;
  if (odometer !== null) attributes.odometer = odometer;
  if (runtime !== null) attributes.engineHours = runtime;

  const [mcc, mnc, lac, cid] = (f.string(i++) ?? '').split('|');
  const [mobileCountryCode, mobileNetworkCode] = [num(mcc), num(mnc)];
  if (mobileCountryCode && mobileNetworkCode) {
    const tower: CellTower = { cellId: hex(cid) ?? 0, locationAreaCode: hex(lac) ?? 0, mobileCountryCode, mobileNetworkCode };
    if (rssi !== null) tower.signalStrength = rssi;
    attributes.network = { cellTowers: [tower] };
  }
  const input = f.hex(i, 0, 2);
  const output = f.hex(i++, 2, 4);
  if (input !== null) attributes.input = input;
  if (output !== null) attributes.output = output;
  analog(f.string(i++) ?? '', attributes);

  const eventData = f.string(i++);
  if (eventData) {
    if (event === 37) attributes.driverUniqueId = eventData.slice(0, 256);
    else attributes.io!.eventData = eventData.slice(0, 256);
  }
  i++; // reserved
  const protocol = f.decimal(i++) ?? 0;
  const fuel = f.string(i++);
  if (fuel && /^[0-9A-Fa-f]{4}$/.test(fuel)) attributes.fuel = parseInt(fuel.slice(0, 2), 16) + parseInt(fuel.slice(2), 16) / 100;
  temperatures(f.string(i++), protocol, attributes);

  const position: DecodedPosition = { deviceTime, valid: validity === 'A', lat, lng, speed, heading, attributes };
  if (satellites !== null) position.satellites = satellites;
  if (altitude !== null) position.altitude = altitude;
  return position;
}

/** Volts as decimals ("battery|power|rtc|mcu|gps"), or three ADC counts then battery and power in centivolts (hex). */
function analog(field: string, attributes: Telemetry): void {
  const parts = field.split('|');
  if (parts[0]?.includes('.')) {
    const [battery, power] = [num(parts[0]), num(parts[1])];
    if (battery !== null) attributes.battery = battery;
    if (power !== null) attributes.power = power;
    return;
  }
  const io = attributes.io!;
  const [adc1, adc2, adc3] = [hex(parts[0]), hex(parts[1]), hex(parts[2])];
  if (adc1 !== null) io.adc1 = adc1;
  if (adc2 !== null) io.adc2 = adc2;
  if (adc3 !== null) io.adc3 = adc3;
  const battery = hex(parts[3]);
  const power = hex(parts[4]);
  if (battery !== null) attributes.battery = battery / 100;
  if (power !== null) attributes.power = power / 100;
}

/** "<index hex 2><value hex 4>|…": protocol 3 and later send hundredths of a degree, signed; earlier ones degree and hundredths. */
function temperatures(field: string | undefined, protocol: number, attributes: Telemetry): void {
  if (!field || !/^[0-9A-Fa-f]{6}(\|[0-9A-Fa-f]{6})*$/.test(field)) return;
  for (const t of field.split('|')) {
    const index = parseInt(t.slice(0, 2), 16);
    if (index < 1 || index > 999) continue;
    let value: number;
    if (protocol >= 3) {
      value = ((parseInt(t.slice(2), 16) << 16) >> 16) / 100;
    } else {
      const whole = (parseInt(t.slice(2, 4), 16) << 24) >> 24;
      value = whole + (whole < 0 ? -0.01 : 0.01) * parseInt(t.slice(4), 16);
    }
    attributes[`temp${index}`] = value;
  }
}
