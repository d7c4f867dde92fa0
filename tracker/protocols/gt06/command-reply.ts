// Text a GT06 unit sends: the answer to a command (0x15, and 0x21 in 79 79 framing), which may be
// a located fix (WHERE#) or the SIM's ICCID.
import type { Telemetry } from '../../positions/telemetry.js';
import { utcDate } from '../reader.js';
import type { DecodedPosition } from '../types.js';
import type { Found, Message } from './blocks.js';

/** 0x15: length, server flag echoed from the command (its commandSeq), ASCII text. */
export function decodeString(m: Message): Found {
  const { r } = m;
  const length = r.u8();
  const flag = r.u32();
  const text = r.bytes(Math.max(0, length - 4)).toString('ascii');
  return { ...answer(text), commandSeq: flag };
}

/** 0x21: server flag, encoding (1: ASCII, else UTF-16BE), text. */
export function decodeStringInfo(m: Message): Found {
  const { r } = m;
  const flag = r.u32();
  const encoding = r.u8();
  const bytes = r.bytes(r.remaining);
  return { ...answer(encoding === 1 ? bytes.toString('ascii') : utf16be(bytes)), commandSeq: flag };
}

function answer(text: string): Found {
  const found: Found = { positions: [], commandReply: text };
  const position = parseLocationReply(text);
  if (position) found.positions.push(position);
  // "<ICCID:89…>" answers the ICCID query; the SIM id is telemetry of its own.
  const iccid = /^<ICCID:(\d{19,20})/.exec(text);
  if (iccid) found.attributes = { iccid: iccid[1]! } satisfies Telemetry;
  return found;
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
