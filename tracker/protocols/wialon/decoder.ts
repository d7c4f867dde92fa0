// Wialon IPS 1.1 and 2.0 decoder. Packets: #L# login, #P# ping, #SD# short data, #D# data, #B#
// black box (stored messages joined by '|'), #M# a message from the driver (the answer to a
// command). Version 2.0 ends each packet with a CRC-16 (ARC) of the body; it is recognised by its
// place, since 1.1 and 2.0 units can share a port. Data packets carry no id: the login (or the
// IMEI some units put in front of the packet) says who is speaking.
import type { Telemetry } from '../../positions/telemetry.js';
import { isAscii } from 'node:buffer';
import { crc16Ibm } from '../crc.js';
import { ddmmyyHhmmss } from '../reader.js';
import { TextFields } from '../text-fields.js';
import { hexValue, isDigit, sixDigits, toNumber } from '../text-numbers.js';
import { atLastFix, lastFix, rememberFix } from '../last-fix.js';
import type { DecodedPosition, DecodeResult, ProtocolState } from '../types.js';
import { applyParams } from './params.js';

/** Fields of a short data packet (SD) and of a full one (D). */
const SHORT_FIELDS = 10;
const FULL_FIELDS = 16;
const HASH = 0x23;

/** A CRC field: 1 to 4 hex digits, else null. */
const crcField = (v: string): number | null => (v.length <= 4 ? hexValue(v) : null);

const answer = (text: string) => Buffer.from(`${text}\r\n`, 'latin1');
// The fixed answers are made once: they are only ever written to the socket.
const LOGGED_IN = answer('#AL#1');
const PONG = answer('#AP#');
const MESSAGE_READ = answer('#AM#1');
/** A data packet's answer: stored, or unreadable. */
const DATA_ANSWERS: Record<string, [stored: Buffer, unreadable: Buffer]> = {
  SD: [answer('#ASD#1'), answer('#ASD#-1')],
  D: [answer('#AD#1'), answer('#AD#-1')],
};

const isCapital = (c: number) => c >= 0x41 && c <= 0x5a;

export function decodeWialon(frame: Buffer, conn: ProtocolState, receivedAt = new Date()): DecodeResult {
  // "[<version>;][<prefix>]#<type>#<body>", the line end not part of the body. The version ("2.0;")
  // is not part of the prefix; the prefix runs to the first '#', then one or two capitals and '#'.
  const text = frame.toString('utf8');
  let end = text.length;
  if (text.charCodeAt(end - 1) === 0x0a) end -= text.charCodeAt(end - 2) === 0x0d ? 2 : 1;
  const from = isDigit(text.charCodeAt(0)) && text.charCodeAt(1) === 0x2e && isDigit(text.charCodeAt(2)) && text.charCodeAt(3) === 0x3b ? 4 : 0;
  const hash = text.indexOf('#', from);
  if (hash < 0) return { positions: [] };
  let typeEnd = hash + 1;
  while (typeEnd < hash + 3 && isCapital(text.charCodeAt(typeEnd))) typeEnd++;
  if (typeEnd === hash + 1 || text.charCodeAt(typeEnd) !== HASH) return { positions: [] };
  const prefix = text.slice(from, hash);
  const type = text.slice(hash + 1, typeEnd);
  const bodyStart = typeEnd + 1;
  const body = text.slice(bodyStart, end);
  const result: DecodeResult = prefix !== '' ? { identity: prefix, positions: [] } : { positions: [] };
  switch (type) {
    case 'L': {
      // 1.1: imei;password — 2.0: 2.0;imei;password;crc
      const fields = body.split(';');
      const v2 = fields[0]!.includes('.');
      const identity = (v2 ? fields[1] : fields[0]) ?? '';
      if (!identity) return { positions: [] };
      const badChecksum = v2 && !crcMatches(frame, text, bodyStart, end);
      return { identity, positions: [], heartbeat: true, reply: LOGGED_IN, ...(badChecksum && { badChecksum }) };
    }
    case 'P':
      result.heartbeat = true;
      result.reply = PONG;
      return result;
    case 'SD':
    case 'D': {
      // Without a 2.0 CRC after the last field, a data packet is 1.1.
      const fields = new TextFields(text, ';', bodyStart, end);
      const fieldCount = type === 'SD' ? SHORT_FIELDS : FULL_FIELDS;
      const hasCrc = fields.length === fieldCount + 1 && crcField(fields.string(fieldCount)!) !== null;
      if (hasCrc) fields.length = fieldCount;
      const position = decodeMessage(fields, conn, receivedAt);
      if (position) {
        rememberFix(conn, [position]);
        result.positions.push(position);
      }
      result.reply = DATA_ANSWERS[type]![position ? 0 : 1];
      if (hasCrc && !crcMatches(frame, text, bodyStart, end)) result.badChecksum = true;
      return result;
    }
    case 'B': {
      const messages = body.split('|');
      const crc = messages.length > 1 ? crcField(messages[messages.length - 1]!) : null;
      if (crc !== null) messages.pop();
      const badChecksum = crc !== null && crcOf(frame, text, bodyStart, bodyStart + body.lastIndexOf('|') + 1) !== crc;
      for (const message of messages) {
        const position = decodeMessage(new TextFields(message, ';'), conn, receivedAt);
        if (!position) continue;
        position.attributes.archive = true;
        result.positions.push(position);
      }
      rememberFix(conn, result.positions);
      result.reply = answer(`#AB#${result.positions.length}`);
      if (badChecksum) result.badChecksum = true;
      return result;
    }
    case 'M': {
      // 2.0 ends the text with ";crc"; 1.1 sends the bare text.
      const reply = body.replace(/;[0-9A-Fa-f]{1,4}$/, '').replace(/[^\x20-\x7e\u00a0-\uffff]/g, '').slice(0, 256);
      result.positions.push(atLastFix(lastFix(conn), receivedAt, { result: reply }));
      result.commandReply = reply;
      result.reply = MESSAGE_READ;
      return result;
    }
    default:
      return result;
  }
}

/**
 * CRC-16/ARC of text[start, end). An ASCII frame is its own text, so the CRC runs over the frame
 * in place; any other is taken as the text re-encoded, as the unit's CRC is of its characters.
 */
function crcOf(frame: Buffer, text: string, start: number, end: number): number {
  return isAscii(frame) ? crc16Ibm(frame, start, end) : crc16Ibm(Buffer.from(text.slice(start, end), 'utf8'));
}

/** CRC-16/ARC over the body text[start, end) up to and including its last ';', against the hex after it. */
function crcMatches(frame: Buffer, text: string, start: number, end: number): boolean {
  const semicolon = text.lastIndexOf(';', end - 1);
  const cut = semicolon < start ? start : semicolon + 1;
  const crc = crcField(text.slice(cut, end));
  return crc !== null && crcOf(frame, text, start, cut) === crc;
}

const isNA = (v: string | undefined) => v === undefined || v === '' || v === 'NA';
const isNAAt = (f: TextFields, k: number) => !f.has(k) || f.start(k) === f.end(k) || f.is(k, 'NA');
const num = (v: string | undefined): number | undefined => {
  if (isNA(v)) return undefined;
  const n = toNumber(v!);
  return Number.isFinite(n) ? n : undefined;
};

/** The field, when known, as a finite number. */
function numberAt(f: TextFields, k: number): number | undefined {
  if (isNAAt(f, k)) return undefined;
  const n = f.number(k);
  return Number.isFinite(n) ? n : undefined;
}

/** DDMM.MMMM (DDDMM.MMMM) in field k, its hemisphere letter after it, or undefined. */
function coordinate(f: TextFields, k: number, negative: string): number | undefined {
  const v = numberAt(f, k);
  const hemisphere = f.string(k + 1);
  if (v === undefined || v < 0 || (hemisphere !== negative && hemisphere !== (negative === 'S' ? 'N' : 'E'))) return undefined;
  const degrees = Math.floor(v / 100);
  const decimal = degrees + (v - degrees * 100) / 60;
  return hemisphere === negative ? -decimal : decimal;
}

/** ddmmyy and hhmmss, UTC. */
function time(date: string | undefined, clock: string | undefined): Date | null {
  if (!sixDigits(date) || !sixDigits(clock)) return null;
  return ddmmyyHhmmss(date, clock);
}

/**
 * One data message: date;time;lat;N|S;lon;E|W;speed;course;altitude;sats and, in the full form,
 * hdop;inputs;outputs;adc;ibutton;params. NA stands for "not known" in any field.
 */
function decodeMessage(f: TextFields, conn: ProtocolState, receivedAt: Date): DecodedPosition | null {
  if (f.length < SHORT_FIELDS) return null;
  const deviceTime = isNAAt(f, 0) && isNAAt(f, 1) ? receivedAt : time(f.string(0), f.string(1));
  if (!deviceTime) return null;
  const attributes: Telemetry = {};
  const hdop = numberAt(f, 10);
  if (hdop !== undefined) attributes.hdop = hdop;
  const inputs = numberAt(f, 11);
  if (inputs !== undefined && Number.isInteger(inputs)) attributes.input = inputs;
  const outputs = numberAt(f, 12);
  if (outputs !== undefined && Number.isInteger(outputs)) attributes.output = outputs;
  if (!isNAAt(f, 13)) {
    const adc = f.string(13)!.split(',');
    for (let i = 0; i < adc.length; i++) {
      const volts = num(adc[i]);
      if (volts !== undefined) attributes[`adc${i + 1}`] = volts;
    }
  }
  if (!isNAAt(f, 14)) attributes.driverUniqueId = f.string(14)!.slice(0, 256);
  if (!isNAAt(f, 15)) applyParams(f.string(15)!, attributes);

  const lat = coordinate(f, 2, 'S');
  const lng = coordinate(f, 4, 'W');
  if (lat === undefined || lng === undefined) return atLastFix(lastFix(conn), deviceTime, attributes);
  const satellites = numberAt(f, 9);
  const altitude = numberAt(f, 8);
  // Units that do not count satellites still send real fixes; a count below 3 is no fix.
  const position: DecodedPosition = { deviceTime, valid: satellites === undefined || satellites >= 3, lat, lng, speed: numberAt(f, 6) ?? 0, heading: numberAt(f, 7) ?? 0, attributes };
  if (altitude !== undefined) position.altitude = altitude;
  if (satellites !== undefined && Number.isInteger(satellites)) position.satellites = satellites;
  return position;
}
