// Queclink @Track framing. Text reports ("+RESP:GTFRI,…,<count>$") end at '$' (a few firmwares
// end them with NUL instead); the delimiter is not part of the frame. Binary reports start with a
// four-character header ("+RSP", "+EVT"…, or '+' then NUL in the newer format) and carry their own
// length at a header-specific offset. There is no checksum.
import { ScanningFramer } from '../scanning-framer.js';

const PLUS = 0x2b;
const DOLLAR = 0x24;
const NUL = 0x00;
/** How a text report starts. */
const TEXT_HEADER = /^\+(RESP|BUFF):|^\+ACK:G/;
/** Header, version, length: a frame shorter than this cannot be told apart yet. */
const MIN_LENGTH = 11;

/** Where a binary frame keeps its total length (bytes after the header start). */
interface LengthField {
  at: number;
  size: 1 | 2;
}

/** The newer form: '+', NUL, then the length. */
const TAGGED: LengthField = { at: 2, size: 2 };

/**
 * Where each binary header keeps its length, by the header's four bytes read as one big-endian
 * number: every frame is looked up, and a number needs no string made of it.
 */
const LENGTH_FIELD = new Map<number, LengthField>(
  Object.entries<LengthField>({
    '+RSP': { at: 9, size: 2 },
    '+BSP': { at: 9, size: 2 },
    '+EVT': { at: 9, size: 2 },
    '+BVT': { at: 9, size: 2 },
    '+INF': { at: 7, size: 2 },
    '+BNF': { at: 7, size: 2 },
    '+HBD': { at: 5, size: 1 },
    '+CRD': { at: 6, size: 2 },
    '+BRD': { at: 6, size: 2 },
    '+LGN': { at: 6, size: 2 },
    '+ACK': { at: 6, size: 1 },
  }).map(([header, field]) => [Buffer.from(header, 'latin1').readUInt32BE(0), field]),
);
const ACK = Buffer.from('+ACK', 'latin1').readUInt32BE(0);
const COLON = 0x3a;

/** The binary length field of the frame at buf[pos], or null when the frame is text. */
export function binaryLengthField(buf: Buffer, pos: number): LengthField | null {
  if (buf[pos + 1] === NUL) return TAGGED;
  if (buf.length - pos < 4) return null;
  const header = buf.readUInt32BE(pos);
  // "+ACK:GT…" is the text acknowledgement; "+ACK" followed by anything else is binary.
  if (header === ACK && buf[pos + 4] === COLON) return null;
  return LENGTH_FIELD.get(header) ?? null;
}

export class Gl200Framer extends ScanningFramer {
  /** Text frames come out without their delimiter, as the decoder reads them. */
  override push(chunk: Buffer): Buffer[] {
    return super.push(chunk).map((frame) => (binaryLengthField(frame, 0) ? frame : frame.subarray(0, frame.length - 1)));
  }

  protected override isFiller(byte: number): boolean {
    return byte === 0x0d || byte === 0x0a;
  }

  protected frameSize(pos: number): number {
    if (this.buf[pos] !== PLUS) return -1;
    const avail = this.buf.length - pos;
    if (avail < MIN_LENGTH) return 0;
    const field = binaryLengthField(this.buf, pos);
    return field ? this.binarySize(pos, field) : this.textSize(pos);
  }

  private binarySize(pos: number, field: LengthField): number {
    const length = field.size === 1 ? this.buf[pos + field.at]! : this.buf.readUInt16BE(pos + field.at);
    if (length < MIN_LENGTH || length > this.maxFrameBytes) return -1;
    return this.buf.length - pos >= length ? length : 0;
  }

  /**
   * Text frames: up to and with the delimiter ('$' or NUL). A new report header before it means the
   * earlier report was cut off: resync there ('+' alone also appears inside reports, as in "+0000").
   */
  private textSize(pos: number): number {
    const buf = this.buf;
    const limit = Math.min(buf.length, pos + this.maxFrameBytes);
    for (let i = pos + 1; i < limit; i += 1) {
      const c = buf[i];
      if (c === DOLLAR || c === NUL) return i + 1 - pos;
      if (c === PLUS && TEXT_HEADER.test(buf.toString('latin1', i, i + 6))) return -1;
    }
    return buf.length - pos >= this.maxFrameBytes ? -1 : 0;
  }
}
