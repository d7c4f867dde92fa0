// Queclink @Track text decoding. Every report is comma-separated:
//   +RESP:GT<type>,<protocol version>,<IMEI>,<device name>,…,<send time>,<count number>
// "+BUFF" is the same report re-sent from the unit's memory; "+ACK" answers a command or, as
// "+ACK:GTHBD", is the heartbeat the server must answer with "+SACK:GTHBD,<version>,<count>$".
// Binary reports (binary.ts) carry the same reports in fixed fields.
import type { Telemetry } from '../../positions/telemetry.js';
import { emptyWhenTruncated } from '../reader.js';
import type { DecodeResult, ProtocolState } from '../types.js';
import { decodeBinary } from './binary.js';
import { canAttributes } from './can.js';
import { eriAttributes } from './eri.js';
import { binaryLengthField } from './framer.js';
import { infoAttributes } from './info.js';
import { findLocations, parseTime } from './location.js';
import { findNetwork } from './network.js';
import { extraAttributes, typeAttributes } from './reports.js';
import { tailAttributes } from './tail.js';

/** "+<kind>:GT<type>": the kind is what lies before ":GT", the type its last three characters. */
const HEADER = /^\+(?:RESP|BUFF|ACK):GT[A-Z0-9]{3}$/;
/** A 15-digit IMEI, or 14 hex digits on some units. */
const IDENTITY = /^(\d{15}|[0-9A-Fa-f]{14})$/;
/** The delimiters a text report ends with. */
const DOLLAR = 0x24;
const NUL = 0x00;
/** Where a report's fields start after the header, version, IMEI and device name. */
const FIRST_FIELD = 4;
/** Reports laid out as GTFRI, whose fifth field is the external power in mV. */
const FRI_LAYOUT = new Set(['FRI', 'RTL', 'GEO', 'DOG', 'STR', 'CTN']);
/** A binary report cut short decodes to nothing. */
const decodeBinaryFrame = emptyWhenTruncated(decodeBinary);

export function decodeGl200(frame: Buffer, conn: ProtocolState): DecodeResult {
  if (frame.length < 2) return { positions: [] };
  if (binaryLengthField(frame, 0)) return decodeBinaryFrame(frame, conn);
  // A frame handed over whole (not cut by the framer) may still carry its delimiter.
  const last = frame[frame.length - 1];
  const text = frame.toString('latin1', 0, last === DOLLAR || last === NUL ? frame.length - 1 : frame.length);
  const f = text.split(',');
  const head = f[0]!;
  if (!HEADER.test(head) || f.length < 4) return { positions: [] };
  const kind = head.slice(1, head.length - 6);
  const type = head.slice(head.length - 3);
  const result: DecodeResult = { positions: [] };
  if (IDENTITY.test(f[2]!)) result.identity = f[2]!;

  if (kind === 'ACK') {
    if (type === 'HBD') {
      result.heartbeat = true;
      result.reply = Buffer.from(`+SACK:GTHBD,${f[1]},${f[f.length - 1]}$`, 'latin1');
    } else {
      result.commandReply = text;
    }
    return result;
  }
  if (type === 'INF') {
    result.attributes = infoAttributes(f);
    if (kind === 'BUFF') result.attributes.archive = true;
    return result;
  }

  const positions = result.positions;
  const end = findLocations(f, FIRST_FIELD, positions);
  const attributes: Telemetry = type === 'CAN' ? canAttributes(f) : {};
  typeAttributes(type, f[5], attributes);
  extraAttributes(type, f, attributes);
  const status = end > 0 ? tailAttributes(f, end, attributes) : -1;
  if (type === 'ERI' && status > 0) eriAttributes(f, status, attributes);
  // Units without an external supply report 0 or a single digit there.
  if (FRI_LAYOUT.has(type) && /^\d{2,5}$/.test(f[4]!) && Number(f[4]) > 10) attributes.power = Number(f[4]) / 1000;
  const archive = kind === 'BUFF';
  if (archive) attributes.archive = true;

  // Several fixes in one report (GTFRI with a number > 1): the report's own values belong to the last.
  if (positions.length) {
    if (archive) for (const position of positions) position.attributes.archive = true;
    Object.assign(positions[positions.length - 1]!.attributes, attributes);
    return result;
  }
  // No fix: the cells and access points heard, stored unlocated at the send time (never moving the unit).
  const network = findNetwork(f, FIRST_FIELD);
  const sent = parseTime(f[f.length - 2]);
  if (network && sent) positions.push({ deviceTime: sent, valid: false, lat: 0, lng: 0, speed: 0, heading: 0, attributes: { ...attributes, network } });
  else if (Object.keys(attributes).length) result.attributes = attributes;
  else result.heartbeat = true;
  return result;
}
