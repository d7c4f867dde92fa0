// JT/T 808 message decoding: reads the envelope (message.ts), answers what the terminal expects
// (0x8001 to most messages, 0x8100 with an auth code to a registration, 0x8109 to a time request)
// and hands the body to the reader of its message id. Every message carries the terminal's phone
// number, so every message identifies the device.
import type { Telemetry } from '../../positions/telemetry.js';
import { emptyWhenTruncated, Reader } from '../reader.js';
import type { DecodeResult, ProtocolState } from '../types.js';
import { rememberTerminal } from './encoder.js';
import { decodeLocation } from './location.js';
import { decodeLockLocation } from './location2.js';
import { buildMessage, generalResponse, type Header, lockResponse, readHeader, terminalId } from './message.js';
import { decodeTransparent } from './transparent.js';
import { readBcdTime } from './values.js';

export const MSG = {
  TERMINAL_RESPONSE: 0x0001,
  POSITION_ANSWER: 0x0201,
  HEARTBEAT: 0x0002,
  LOGOUT: 0x0003,
  REGISTER: 0x0100,
  AUTH: 0x0102,
  ATTRIBUTES: 0x0107,
  TIME_REQUEST: 0x0109,
  LOCATION: 0x0200,
  LOCATION_BATCH_2: 0x0210,
  COMMAND_RESPONSE: 0x0701,
  DRIVER_IDENTITY: 0x0702,
  LOCATION_BATCH: 0x0704,
  TRANSPARENT: 0x0900,
  TIMEZONE: 0x1007,
  TEXT_RESPONSE: 0x1300,
  ACCELERATION: 0x2070,
  HEARTBEAT_2: 0x0506,
  TEXT_REPORT: 0x6006,
  LOCK_LOCATION: 0x5501,
  LOCK_LOCATION_STORED: 0x5502,
  PHOTO: 0x8888,
} as const;

/** Messages answered with 0x8001 and nothing more to say. */
const SIGN_OF_LIFE = new Set<number>([MSG.LOGOUT, MSG.HEARTBEAT_2, MSG.PHOTO, MSG.TIMEZONE]);

export const decodeJt808 = emptyWhenTruncated((frame, conn) => (frame[0] === 0x28 ? decodeText(frame) : decodeBinary(frame, conn)));

/** "(…)" text: "BASE,2,TIME" asks for the time (echoed with it filled in); anything else is an answer. */
function decodeText(frame: Buffer): DecodeResult {
  const text = frame.toString('latin1');
  if (text.includes('BASE,2')) {
    const now = new Date().toISOString();
    const time = `${now.slice(0, 10).replace(/-/g, '')}${now.slice(11, 19).replace(/:/g, '')}`;
    return { positions: [], heartbeat: true, reply: Buffer.from(text.replace('TIME', time), 'latin1') };
  }
  return answer(text);
}

function answer(text: string): DecodeResult {
  return { positions: [], attributes: { result: text.slice(0, 256) }, commandReply: text };
}

function decodeBinary(frame: Buffer, conn: ProtocolState): DecodeResult {
  const h = readHeader(frame);
  if (!h) return { positions: [] };
  // Commands go out addressed as the terminal last spoke.
  rememberTerminal(conn, h.terminal, h.version);
  const result: DecodeResult = decodeBody(h);
  result.identity = terminalId(h.terminal);
  if (h.badChecksum) result.badChecksum = true;
  return result;
}

function decodeBody(h: Header): Omit<DecodeResult, 'identity'> {
  const { r } = h;
  const ack = generalResponse(h);
  // Packets of a split message (multimedia uploads, long batches) are acknowledged one by one, as
  // the standard asks; they are not reassembled, so nothing in them is read.
  if (h.split) return { positions: [], heartbeat: true, reply: ack };
  switch (h.type) {
    case MSG.REGISTER: {
      // The auth code the terminal keeps and sends back in 0x0102: its own id.
      const body = Buffer.concat([Buffer.from([h.serial >> 8, h.serial & 0xff, 0]), Buffer.from(terminalId(h.terminal), 'ascii')]);
      return { positions: [], heartbeat: true, reply: buildMessage(0x8100, h.terminal, 0, body, h.version) };
    }
    case MSG.AUTH:
      return { positions: [], heartbeat: true, reply: ack };
    case MSG.HEARTBEAT: {
      if (r.remaining < 3) return { positions: [], heartbeat: true, reply: ack };
      const a: Telemetry = { batteryLevel: r.u8(), rssi: r.u8(), io: { status: r.u8() } };
      return { positions: [], attributes: a, reply: ack };
    }
    case MSG.ATTRIBUTES: {
      r.skip(2 + 5 + 20 + 7); // terminal type, manufacturer, model, terminal id
      return { positions: [], attributes: { iccid: r.bytes(10).toString('hex') }, reply: ack };
    }
    case MSG.LOCATION:
      return { positions: [decodeLocation(r)], reply: ack };
    case MSG.LOCATION_BATCH:
    case MSG.LOCATION_BATCH_2:
      if (h.type === MSG.LOCATION_BATCH_2 && (h.attributes & 0x03ff) === 7) {
        // Battery level and the time only: no fix.
        return { positions: [], attributes: { batteryLevel: r.u8() }, reply: ack };
      }
      return { positions: decodeBatch(r, h.type), reply: ack };
    case MSG.LOCK_LOCATION:
    case MSG.LOCK_LOCATION_STORED: {
      const position = decodeLockLocation(r, h.type === MSG.LOCK_LOCATION_STORED);
      // The locks ask for an answer with attribute bit 15.
      return { positions: position ? [position] : [], reply: h.attributes & 0x8000 ? lockResponse(h) : undefined };
    }
    case MSG.TIME_REQUEST:
      return { positions: [], heartbeat: true, reply: timeResponse(h) };
    case MSG.ACCELERATION: {
      const samples: string[] = [];
      while (r.remaining >= 12) {
        r.skip(6); // time
        samples.push(`[${signMagnitude(r.u16())},${signMagnitude(r.u16())},${signMagnitude(r.u16())}]`);
      }
      return { positions: [], attributes: { io: { gSensor: `[${samples.join(',')}]`.slice(0, 4096) } } };
    }
    case MSG.TRANSPARENT:
      return { ...decodeTransparent(r), reply: ack };
    case MSG.COMMAND_RESPONSE:
      return answer(r.bytes(Math.min(r.u32(), r.remaining)).toString('latin1'));
    case MSG.TEXT_RESPONSE:
      r.skip(2); // serial of the text message answered
      return answer(utf16be(r.bytes(r.remaining)).trim());
    case MSG.TEXT_REPORT:
      r.skip(1); // encoding
      return { ...answer(r.bytes(r.remaining).toString('latin1')), reply: ack };
    case MSG.DRIVER_IDENTITY:
      return decodeDriverIdentity(r);
    case MSG.TERMINAL_RESPONSE: {
      // The terminal's answer to one of our commands: the command's serial, its id and a result
      // (0 success; 1 failure, 2 bad message, 3 not supported fail the command).
      const serial = r.u16();
      const type = r.u16();
      const result = r.u8();
      const outcome = ['success', 'failure', 'bad message', 'not supported'][result] ?? 'unknown result';
      const reply: DecodeResult = { positions: [], commandReply: `0x${type.toString(16).padStart(4, '0')} #${serial}: ${outcome}`, commandSeq: serial };
      if (result !== 0) reply.commandFailed = true;
      return reply;
    }
    case MSG.POSITION_ANSWER: {
      // The answer to a position query (0x8201): its serial, then a location report.
      const serial = r.u16();
      return { positions: [decodeLocation(r)], commandReply: `0x8201 #${serial}: position`, commandSeq: serial };
    }
    default:
      return SIGN_OF_LIFE.has(h.type) ? { positions: [], heartbeat: true, reply: ack } : { positions: [], heartbeat: true };
  }
}

/** 0x0704: count, type (1 = re-sent from memory), records with a 2-byte length; 0x0210: 1-byte lengths. */
function decodeBatch(r: Reader, type: number): ReturnType<typeof decodeLocation>[] {
  let archive = false;
  if (type === MSG.LOCATION_BATCH) {
    r.skip(2); // count
    archive = r.u8() > 0;
  }
  const positions = [];
  while (r.remaining > 0) {
    const length = type === MSG.LOCATION_BATCH ? r.u16() : r.u8();
    const record = r.bytes(Math.min(length, r.remaining));
    const position = decodeLocation(new Reader(record));
    if (archive) position.attributes.archive = true;
    positions.push(position);
  }
  return positions;
}

function decodeDriverIdentity(r: Reader): DecodeResult {
  const io: Record<string, number | string> = { cardStatus: r.u8() };
  readBcdTime(r);
  io.cardResult = r.u8();
  io.driver = r.bytes(r.u8()).toString('latin1');
  io.cardCode = r.bytes(20).toString('latin1').replace(/\0/g, '').trim();
  io.cardAgency = r.bytes(r.u8()).toString('latin1');
  io.cardValidity = r.bytes(4).toString('hex');
  return { positions: [], attributes: { io } };
}

/** 0x8109: the server's UTC time (year as 2 bytes) and result 0. */
function timeResponse(h: Header): Buffer {
  const now = new Date();
  const body = Buffer.alloc(8);
  body.writeUInt16BE(now.getUTCFullYear(), 0);
  body.set([now.getUTCMonth() + 1, now.getUTCDate(), now.getUTCHours(), now.getUTCMinutes(), now.getUTCSeconds(), 0], 2);
  return buildMessage(0x8109, h.terminal, 0, body, h.version);
}

function signMagnitude(value: number): number {
  return value & 0x8000 ? -(value & 0x7fff) : value;
}

function utf16be(bytes: Buffer): string {
  return Buffer.from(bytes.subarray(0, bytes.length & ~1)).swap16().toString('utf16le');
}
