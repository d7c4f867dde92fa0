// Wialon IPS 1.1 and 2.0 decoder. Packets: #L# login, #P# ping, #SD# short data, #D# data, #B#
// black box (stored messages joined by '|'), #M# a message from the driver (the answer to a
// command). Version 2.0 ends each packet with a CRC-16 (ARC) of the body; it is recognised by its
// place, since 1.1 and 2.0 units can share a port. Data packets carry no id: the login (or the
// IMEI some units put in front of the packet) says who is speaking.
import type { Telemetry } from '../../positions/telemetry.js';
import { crc16Ibm } from '../crc.js';
import { ddmmyyHhmmss } from '../reader.js';
import { atLastFix, lastFix, rememberFix } from '../last-fix.js';
import type { DecodedPosition, DecodeResult, ProtocolState } from '../types.js';
import { applyParams } from './params.js';

const PACKET = /^(?:\d\.\d;)?([^#]*)#([A-Z]{1,2})#(.*)$/s;
/** Fields of a short data packet (SD) and of a full one (D). */
const SHORT_FIELDS = 10;
const FULL_FIELDS = 16;
const CRC_FIELD = /^[0-9A-Fa-f]{1,4}$/;

const answer = (text: string) => Buffer.from(`${text}\r\n`, 'latin1');

export function decodeWialon(frame: Buffer, conn: ProtocolState, receivedAt = new Date()): DecodeResult {
  const m = PACKET.exec(frame.toString('utf8').replace(/\r?\n$/, ''));
  if (!m) return { positions: [] };
  const [, prefix, type, body] = m as unknown as [string, string, string, string];
  const id = prefix !== '' ? { identity: prefix } : {};
  switch (type) {
    case 'L': {
      // 1.1: imei;password — 2.0: 2.0;imei;password;crc
      const fields = body.split(';');
      const v2 = fields[0]!.includes('.');
      const identity = (v2 ? fields[1] : fields[0]) ?? '';
      if (!identity) return { positions: [] };
      const badChecksum = v2 && !crcMatches(body);
      return { identity, positions: [], heartbeat: true, reply: answer('#AL#1'), ...(badChecksum && { badChecksum }) };
    }
    case 'P':
      return { ...id, positions: [], heartbeat: true, reply: answer('#AP#') };
    case 'SD':
    case 'D': {
      const { fields, badChecksum } = splitMessage(body, type === 'SD' ? SHORT_FIELDS : FULL_FIELDS);
      const position = decodeMessage(fields, conn, receivedAt);
      if (position) rememberFix(conn, [position]);
      return { ...id, positions: position ? [position] : [], reply: answer(position ? `#A${type}#1` : `#A${type}#-1`), ...(badChecksum && { badChecksum }) };
    }
    case 'B': {
      const messages = body.split('|');
      const crc = messages.length > 1 && CRC_FIELD.test(messages[messages.length - 1]!) ? messages.pop() : undefined;
      const badChecksum = crc !== undefined && crc16Ibm(Buffer.from(body.slice(0, body.lastIndexOf('|') + 1), 'utf8')) !== parseInt(crc, 16);
      const positions: DecodedPosition[] = [];
      for (const message of messages) {
        const position = decodeMessage(message.split(';'), conn, receivedAt);
        if (!position) continue;
        position.attributes.archive = true;
        positions.push(position);
      }
      rememberFix(conn, positions);
      return { ...id, positions, reply: answer(`#AB#${positions.length}`), ...(badChecksum && { badChecksum }) };
    }
    case 'M': {
      // 2.0 ends the text with ";crc"; 1.1 sends the bare text.
      const text = body.replace(/;[0-9A-Fa-f]{1,4}$/, '').replace(/[^\x20-\x7e\u00a0-\uffff]/g, '').slice(0, 256);
      return { ...id, positions: [atLastFix(lastFix(conn), receivedAt, { result: text })], commandReply: text, reply: answer('#AM#1') };
    }
    default:
      return { ...id, positions: [] };
  }
}

/** The body's fields without the 2.0 CRC, and whether that CRC was wrong. */
function splitMessage(body: string, fieldCount: number): { fields: string[]; badChecksum: boolean } {
  const fields = body.split(';');
  const hasCrc = fields.length === fieldCount + 1 && CRC_FIELD.test(fields[fieldCount]!);
  if (!hasCrc) return { fields, badChecksum: false };
  return { fields: fields.slice(0, fieldCount), badChecksum: !crcMatches(body) };
}

/** CRC-16/ARC over the body up to and including its last ';', against the hex after it. */
function crcMatches(body: string): boolean {
  const cut = body.lastIndexOf(';') + 1;
  const crc = body.slice(cut);
  return CRC_FIELD.test(crc) && crc16Ibm(Buffer.from(body.slice(0, cut), 'utf8')) === parseInt(crc, 16);
}

const isNA = (v: string | undefined) => v === undefined || v === '' || v === 'NA';
const num = (v: string | undefined): number | undefined => {
  if (isNA(v)) return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
};

/** DDMM.MMMM (DDDMM.MMMM) with its hemisphere letter, or undefined. */
function coordinate(value: string | undefined, hemisphere: string | undefined, negative: string): number | undefined {
  const v = num(value);
  if (v === undefined || v < 0 || (hemisphere !== negative && hemisphere !== (negative === 'S' ? 'N' : 'E'))) return undefined;
  const degrees = Math.floor(v / 100);
  const decimal = degrees + (v - degrees * 100) / 60;
  return hemisphere === negative ? -decimal : decimal;
}

/** ddmmyy and hhmmss, UTC. */
function time(date: string | undefined, clock: string | undefined): Date | null {
  if (!date || !clock || !/^\d{6}$/.test(date) || !/^\d{6}$/.test(clock)) return null;
  return ddmmyyHhmmss(date, clock);
}

/**
 * One data message: date;time;lat;N|S;lon;E|W;speed;course;altitude;sats and, in the full form,
 * hdop;inputs;outputs;adc;ibutton;params. NA stands for "not known" in any field.
 */
function decodeMessage(f: string[], conn: ProtocolState, receivedAt: Date): DecodedPosition | null {
  if (f.length < SHORT_FIELDS) return null;
  const deviceTime = isNA(f[0]) && isNA(f[1]) ? receivedAt : time(f[0], f[1]);
  if (!deviceTime) return null;
  const attributes: Telemetry = {};
  const hdop = num(f[10]);
  if (hdop !== undefined) attributes.hdop = hdop;
  const inputs = num(f[11]);
  if (inputs !== undefined && Number.isInteger(inputs)) attributes.input = inputs;
  const outputs = num(f[12]);
  if (outputs !== undefined && Number.isInteger(outputs)) attributes.output = outputs;
  if (!isNA(f[13])) {
    const adc = f[13]!.split(',');
    for (let i = 0; i < adc.length; i++) {
      const volts = num(adc[i]);
      if (volts !== undefined) attributes[`adc${i + 1}`] = volts;
    }
  }
  if (!isNA(f[14])) attributes.driverUniqueId = f[14]!.slice(0, 256);
  if (!isNA(f[15])) applyParams(f[15]!, attributes);

  const lat = coordinate(f[2], f[3], 'S');
  const lng = coordinate(f[4], f[5], 'W');
  if (lat === undefined || lng === undefined) return atLastFix(lastFix(conn), deviceTime, attributes);
  const satellites = num(f[9]);
  const altitude = num(f[8]);
  // Units that do not count satellites still send real fixes; a count below 3 is no fix.
  const position: DecodedPosition = { deviceTime, valid: satellites === undefined || satellites >= 3, lat, lng, speed: num(f[6]) ?? 0, heading: num(f[7]) ?? 0, attributes };
  if (altitude !== undefined) position.altitude = altitude;
  if (satellites !== undefined && Number.isInteger(satellites)) position.satellites = satellites;
  return position;
}
