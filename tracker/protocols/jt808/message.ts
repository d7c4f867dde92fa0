// The JT/T 808 envelope: 7e | message id(2) | attributes(2) | [version(1)] | phone number | serial(2)
// | body | XOR check code | 7e. Attribute bits 0..9 are the body length, bit 14 marks the 2019
// header (a version byte and a 10-byte number instead of 6). The check code is the XOR of every byte
// from the message id to the end of the body.
import { Reader } from '../reader.js';
import { escape, headerLength, SHORT_SERIAL } from './framer.js';
import { bcd } from './values.js';

export interface Header {
  type: number;
  attributes: number;
  /** Set on 2019 headers. */
  version?: number;
  /** The phone number as sent (6 or 10 bytes), echoed in every answer. */
  terminal: Buffer;
  serial: number;
  /** A packet of a message split in several (attribute bit 13). */
  split: boolean;
  /** The body, bounded by the frame (a declared length past it is not trusted). */
  r: Reader;
  badChecksum: boolean;
}

export function xor(buf: Buffer, start: number, end: number): number {
  let x = 0;
  for (let i = start; i < end; i++) x ^= buf[i]!;
  return x;
}

/** Reads the header of an unescaped frame (delimiters included); null when it is too short. */
export function readHeader(frame: Buffer): Header | null {
  if (frame.length < 1 + 12 + 2) return null;
  const r = new Reader(frame, 1, frame.length - 2);
  const type = r.u16();
  const attributes = r.u16();
  if (frame.length < 1 + headerLength(type, attributes) + 2) return null;
  const version = attributes & 0x4000 ? r.u8() : undefined;
  const terminal = r.bytes(version === undefined ? 6 : 10);
  const serial = SHORT_SERIAL.has(type) ? r.u8() : r.u16();
  if (attributes & 0x2000) r.skip(4); // packet count and index of a split message
  const badChecksum = xor(frame, 1, frame.length - 2) !== frame[frame.length - 2];
  return { type, attributes, version, terminal, serial, split: (attributes & 0x2000) !== 0, r, badChecksum };
}

/**
 * The device id: the phone number's BCD digits without the zero padding. A number that is not
 * BCD is a 48-bit IMEI prefix, completed with its Luhn check digit.
 */
export function terminalId(terminal: Buffer): string {
  // The digits are read as numbers of up to ten digits each, the last five bytes and those before
  // (a double holds them exactly), so the padding falls away as the number is written out.
  const split = terminal.length - 5;
  let high = 0;
  let low = 0;
  for (let i = 0; i < terminal.length; i++) {
    const b = terminal[i]!;
    if (b >> 4 > 9 || (b & 0x0f) > 9) {
      const imei = terminal.readUIntBE(0, 6);
      return `${imei}${luhn(imei)}`;
    }
    if (i < split) high = high * 100 + bcd(b);
    else low = low * 100 + bcd(b);
  }
  return high > 0 ? `${high}${String(low).padStart(10, '0')}` : String(low);
}

function luhn(value: number): number {
  const digits = String(value);
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return (10 - (sum % 10)) % 10;
}

/** A message to the terminal, escaped and ready to send. */
export function buildMessage(type: number, terminal: Buffer, serial: number, body: Buffer, version?: number, shortSerial = false): Buffer {
  const v = version !== undefined ? 1 : 0;
  const s = shortSerial ? 1 : 2;
  const message = Buffer.allocUnsafe(1 + 4 + v + terminal.length + s + body.length + 2);
  message[0] = 0x7e;
  message.writeUInt16BE(type, 1);
  let at = message.writeUInt16BE((body.length & 0x03ff) | (v ? 0x4000 : 0), 3);
  if (version !== undefined) message[at++] = version;
  at += terminal.copy(message, at);
  at = shortSerial ? message.writeUInt8(serial & 0xff, at) : message.writeUInt16BE(serial & 0xffff, at);
  at += body.copy(message, at);
  message[at] = xor(message, 1, at);
  message[at + 1] = 0x7e;
  return escape(message);
}

/** The body of 0x8001, written for each answer and copied into it: one buffer for them all. */
const GENERAL_BODY = Buffer.alloc(5);

/** 0x8001: the platform's general answer (the message's serial and id, result 0 = success). */
export function generalResponse(h: Header): Buffer {
  GENERAL_BODY.writeUInt16BE(h.serial, 0);
  GENERAL_BODY.writeUInt16BE(h.type, 2);
  return buildMessage(0x8001, h.terminal, 0, GENERAL_BODY, h.version);
}

/** 0x4401: the locks' answer (message id, result 0), asked for by attribute bit 15. */
export function lockResponse(h: Header): Buffer {
  return buildMessage(0x4401, h.terminal, 1, Buffer.from([h.type >> 8, h.type & 0xff, 0]), h.version, true);
}
