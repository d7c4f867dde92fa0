// JT/T 808 stream framing. A message travels between two 0x7e delimiters with 0x7e and 0x7d inside
// escaped as 7d 02 and 7d 01; the framer hands the decoder the unescaped message, delimiters
// included. A few units also send parenthesised text answers, "(…)", on the same connection.
import { ScanningFramer } from '../scanning-framer.js';
import type { Framer } from '../types.js';

const FLAG = 0x7e;
const ESCAPE = 0x7d;

/** The padlocks' location reports (0x5501, 0x5502) number their messages with one byte. */
export const SHORT_SERIAL = new Set([0x5501, 0x5502]);

/**
 * Header bytes before the body: message id, attributes, phone number (6, or 10 + a version byte in
 * 2019), serial, and for a message split in packets (attribute bit 13) the packet count and index.
 */
export function headerLength(type: number, attributes: number): number {
  const serial = SHORT_SERIAL.has(type) ? 1 : 2;
  const packets = attributes & 0x2000 ? 4 : 0;
  return (attributes & 0x4000 ? 2 + 2 + 1 + 10 : 2 + 2 + 6) + serial + packets;
}

/** The message with its escapes undone (a 7d followed by anything but 01/02 is kept as is). */
export function unescape(frame: Buffer): Buffer {
  return frame.includes(ESCAPE) ? unescapeInPlace(Buffer.from(frame)) : frame;
}

/**
 * Undoes the escapes within the frame's own bytes, each byte moving up over the escapes before it:
 * for a frame nothing else reads. Returns the part that holds the message.
 */
function unescapeInPlace(frame: Buffer): Buffer {
  let at = frame.indexOf(ESCAPE);
  if (at < 0) return frame;
  for (let i = at; i < frame.length; i++) {
    const b = frame[i]!;
    const next = frame[i + 1];
    if (b === ESCAPE && (next === 0x01 || next === 0x02)) {
      frame[at++] = next === 0x01 ? ESCAPE : FLAG;
      i++;
    } else {
      frame[at++] = b;
    }
  }
  return at === frame.length ? frame : frame.subarray(0, at);
}

/** Escapes 7e and 7d between the delimiters of a built message (the message itself when it has none). */
export function escape(message: Buffer): Buffer {
  let specials = 0;
  for (let i = 1; i < message.length - 1; i++) if (message[i] === FLAG || message[i] === ESCAPE) specials++;
  if (specials === 0) return message;
  const out = Buffer.allocUnsafe(message.length + specials);
  let at = 0;
  out[at++] = FLAG;
  for (let i = 1; i < message.length - 1; i++) {
    const b = message[i]!;
    if (b === FLAG) (out[at++] = ESCAPE), (out[at++] = 0x02);
    else if (b === ESCAPE) (out[at++] = ESCAPE), (out[at++] = 0x01);
    else out[at++] = b;
  }
  out[at] = FLAG;
  return out;
}

/** Total length a message declares (delimiters, header, body, check code), or null when it is shorter than its header. */
function declaredLength(message: Buffer): number | null {
  if (message.length < 5) return null;
  const attributes = message.readUInt16BE(3);
  const header = 1 + headerLength(message.readUInt16BE(1), attributes);
  return message.length < header ? null : header + (attributes & 0x03ff) + 1 + 1;
}

/** Frames as the decoder reads them: unescaped, unless the unit sent the body raw (its declared length says so). */
class Jt808Framer extends ScanningFramer {
  override push(chunk: Buffer): Buffer[] {
    const frames = super.push(chunk);
    for (let i = 0; i < frames.length; i++) {
      const frame = frames[i]!;
      if (frame[0] !== FLAG || declaredLength(frame) === frame.length) continue;
      // A frame cut out of the buffered bytes is the framer's own copy, so its escapes are undone
      // where it lies; a read that is the whole frame is still the caller's, and is not written to.
      frames[i] = frame === chunk ? unescape(frame) : unescapeInPlace(frame);
    }
    return frames;
  }

  protected frameSize(pos: number): number {
    const b = this.buf;
    const first = b[pos];
    if (first === 0x28) {
      // "(" … ")": a text answer.
      const close = b.indexOf(0x29, pos + 1);
      if (close >= 0 && close - pos < this.maxFrameBytes) return close + 1 - pos;
      return b.length - pos >= this.maxFrameBytes ? -1 : 0;
    }
    if (first !== FLAG) return -1;
    // Two delimiters in a row: the end of one message and the start of the next (or noise).
    if (b[pos + 1] === FLAG) return -1;
    const close = b.indexOf(FLAG, pos + 1);
    if (close < 0) return b.length - pos >= this.maxFrameBytes ? -1 : 0;
    const size = close + 1 - pos;
    if (size > this.maxFrameBytes) return -1;
    // Some firmwares do not escape a 7e inside the body: when the message cut at the first
    // delimiter is shorter than its header declares and the declared end is a delimiter, the
    // message runs to there.
    const declared = declaredLength(unescape(b.subarray(pos, close + 1)));
    if (declared !== null && declared > size && declared <= this.maxFrameBytes) {
      if (b.length - pos < declared) return 0;
      if (b[pos + declared - 1] === FLAG && !b.subarray(pos, pos + declared).includes(ESCAPE)) return declared;
    }
    return size;
  }
}

export function createJt808Framer(maxFrameBytes: number): Framer {
  return new Jt808Framer(maxFrameBytes);
}
