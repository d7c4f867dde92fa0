// Teltonika decoding: the IMEI handshake and AVL packets in Codec 8, 8 Extended and 16
// (FM/FMB positions), Codec 7 (GH3000 personal trackers) and Codec 12/13 (command responses and
// serial data). AVL packet layout:
//   00000000 | data length(4) | codec | count | records… | count | CRC-16/IBM(4)
// The CRC covers codec through the second count. The server acknowledges a packet by
// sending the record count as a 4-byte integer once the records are stored.
import { crc16Ibm } from '../crc.js';
import { Reader, TRUNCATED, Truncated, emptyWhenTruncated } from '../reader.js';
import { addAlarm, type Telemetry } from '../../positions/telemetry.js';
import type { DecodedPosition, DecodeResult, ProtocolState } from '../types.js';
import { decodeGh3000 } from './gh3000.js';
import { applyIo, ioValue } from './io.js';
import { lastFix, rememberFix } from '../last-fix.js';
import { fmbNetwork } from './network.js';
import { decodeResponse } from './responses.js';
import { ioElements } from '../io-elements.js';

export const CODEC_7 = 0x07;
export const CODEC_8 = 0x08;
export const CODEC_8E = 0x8e;
export const CODEC_16 = 0x10;
export const CODEC_12 = 0x0c;
export const CODEC_13 = 0x0d;

/** Field widths that differ between the position codecs. */
interface Layout {
  eventId: 1 | 2;
  count: 1 | 2;
  ioId: 1 | 2;
  generationType: boolean;
  variableLength: boolean;
  /** A group of 16-byte values after the 8-byte one (older FM firmware with "extended" IO). */
  sixteenBytes?: boolean;
}
const LAYOUTS: Record<number, Layout> = {
  [CODEC_8]: { eventId: 1, count: 1, ioId: 1, generationType: false, variableLength: false },
  [CODEC_8E]: { eventId: 2, count: 2, ioId: 2, generationType: false, variableLength: true },
  [CODEC_16]: { eventId: 2, count: 1, ioId: 2, generationType: true, variableLength: false },
};

const PRIORITY_PANIC = 2;

export const decodeTeltonika = emptyWhenTruncated(decodeFrame);

function decodeFrame(frame: Buffer, conn: ProtocolState): DecodeResult {
  if (frame.length === 1 && frame[0] === 0xff) return { positions: [], heartbeat: true };
  if (frame.length >= 2 && frame.readUInt16BE(0) !== 0) return decodeHandshake(frame);
  if (frame.length < 8 + 3) return { positions: [] };

  // The framer hands over whole packets. One cut short (a capture, a packet whose length field
  // is wrong) is read as far as its bytes go, and its CRC cannot be checked.
  const declaredEnd = 8 + frame.readUInt32BE(4);
  const whole = declaredEnd + 4 <= frame.length;
  const dataEnd = whole ? declaredEnd : frame.length;
  const result: DecodeResult = { positions: [] };
  if (whole && frame.readUInt32BE(dataEnd) !== crc16Ibm(frame, 8, dataEnd)) result.badChecksum = true;

  const r = new Reader(frame, 8, dataEnd);
  const codec = r.u8();
  const count = r.u8();
  if (codec === CODEC_12 || codec === CODEC_13) return { ...result, ...decodeResponse(r, codec === CODEC_13, lastFix(conn)) };
  const positions = codec === CODEC_7 ? decodeGh3000(r, count, lastFix(conn)) : decodeAvl(r, codec, count, whole);
  if (positions === null) return result;
  result.positions = positions;
  rememberFix(conn, positions);
  const reply = Buffer.alloc(4);
  reply.writeUInt32BE(count);
  result.reply = reply;
  return result;
}

/** 2-byte length + IMEI digits. The server replies 01 only after accepting the identity. */
function decodeHandshake(frame: Buffer): DecodeResult {
  const length = frame.readUInt16BE(0);
  const imei = frame.subarray(2, 2 + length).toString('latin1');
  if (frame.length !== 2 + length || !/^\d+$/.test(imei)) return { positions: [] };
  return { identity: imei, positions: [], reply: Buffer.from([0x01]) };
}

/**
 * The records of a Codec 8/8E/16 packet, or null for a codec we do not know. Firmware with
 * "extended" IO adds a 16-byte group that nothing in the packet announces (Traccar needs a server
 * setting): when the records do not end with the second count where the packet ends, they are
 * read again with it. In a packet cut short only the second count can be checked.
 */
function decodeAvl(r: Reader, codec: number, count: number, whole: boolean): DecodedPosition[] | null {
  const layout = LAYOUTS[codec];
  if (!layout) return null;
  const start = r.pos;
  try {
    return decodeRecords(r, layout, count, whole);
  } catch (err) {
    if (!(err instanceof Truncated)) throw err;
  }
  r.pos = start;
  return decodeRecords(r, { ...layout, sixteenBytes: true }, count, whole);
}

function decodeRecords(r: Reader, layout: Layout, count: number, whole: boolean): DecodedPosition[] {
  const positions: DecodedPosition[] = [];
  for (let i = 0; i < count; i++) positions.push(decodeRecord(r, layout));
  if (r.u8() !== count || (whole && r.remaining > 0)) throw TRUNCATED;
  return positions;
}

/** A count or an IO id, one or two bytes wide by the codec. */
function readWidth(r: Reader, bytes: 1 | 2): number {
  return bytes === 1 ? r.u8() : r.u16();
}

function decodeRecord(r: Reader, layout: Layout): DecodedPosition {
  const time = new Date(Number(r.u64()));
  if (Number.isNaN(time.getTime())) throw TRUNCATED; // not a real record: drop the packet
  const priority = r.u8();
  const lng = r.i32() / 1e7;
  const lat = r.i32() / 1e7;
  const altitude = r.i16();
  const heading = r.u16();
  const satellites = r.u8();
  const speed = r.u16();
  const attributes: Telemetry = { priority };
  const event = layout.eventId === 1 ? r.u8() : r.u16();
  if (event) attributes.event = event;
  const io = ioElements();
  if (layout.generationType) io.generationType = r.u8();
  attributes.io = io;

  readWidth(r, layout.count); // total IO count, implied by the groups below
  for (const width of layout.sixteenBytes ? [1, 2, 4, 8, 16] : [1, 2, 4, 8]) {
    const n = readWidth(r, layout.count);
    for (let k = 0; k < n; k++) {
      const id = readWidth(r, layout.ioId);
      const raw = r.bytes(width);
      io[id] = ioValue(raw);
      applyIo(id, raw, attributes);
    }
  }
  if (layout.variableLength) {
    const n = r.u16();
    for (let k = 0; k < n; k++) {
      const id = r.u16();
      const raw = r.bytes(r.u16());
      io[id] = raw.toString('hex'); // opaque payloads (BLE, CAN frames…) stay as bytes
      applyIo(id, raw, attributes);
    }
  }
  const network = fmbNetwork(io);
  if (network) attributes.network = network;
  if (priority === PRIORITY_PANIC) addAlarm(attributes, 'sos');
  return {
    deviceTime: time,
    // A record without satellites reuses the last known coordinates.
    valid: satellites > 0,
    lat,
    lng,
    speed,
    heading,
    altitude,
    satellites,
    attributes,
  };
}
