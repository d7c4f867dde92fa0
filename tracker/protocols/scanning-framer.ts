// The stream loop every binary/text framer shares: buffer what arrives, ask the protocol how long
// the frame at the current offset is, cut it out, and skip one byte at a time past anything that
// cannot start a frame (counted as garbage), so a stream resynchronises after noise.
import type { Framer } from './types.js';

/** Nothing buffered: shared, as it is never written to. */
const EMPTY = Buffer.alloc(0);

/**
 * The frame at `pos`, holding no more than its own bytes: a copy, so that a frame held (queued
 * behind others, or kept by a decoder) does not hold the whole read it came in; or the read itself
 * when the frame is all of its memory, as a device's one report per read is, and a copy would be
 * only work.
 */
function ownFrame(buf: Buffer, pos: number, size: number): Buffer {
  if (pos === 0 && size === buf.length && buf.byteOffset === 0 && buf.buffer.byteLength === size) return buf;
  return Buffer.from(buf.subarray(pos, pos + size));
}

export abstract class ScanningFramer implements Framer {
  protected buf: Buffer = EMPTY;
  /** True while bytes are being skipped, until the next frame is found. */
  protected resyncing = false;
  private skippedBytes = 0;
  /** Stream offset of buf[0]: lets a framer remember what it has searched across reads. */
  protected offset = 0;

  constructor(protected readonly maxFrameBytes: number) {}

  get skipped(): number {
    return this.skippedBytes;
  }

  /** Frame length at pos: > 0 a frame, 0 when more bytes are needed, -1 when pos cannot start one. */
  protected abstract frameSize(pos: number): number;

  /** Bytes a protocol expects between frames (line endings); skipped without counting as garbage. */
  protected isFiller(_byte: number): boolean {
    return false;
  }

  push(chunk: Buffer): Buffer[] {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    const frames: Buffer[] = [];
    let pos = 0;
    while (pos < this.buf.length) {
      const size = this.frameSize(pos);
      if (size === 0) break;
      if (size < 0) {
        if (!this.isFiller(this.buf[pos]!)) {
          this.skippedBytes += 1;
          this.resyncing = true;
        }
        pos += 1;
        continue;
      }
      this.resyncing = false;
      frames.push(ownFrame(this.buf, pos, size));
      pos += size;
    }
    // Once every byte is used, the read they came in is let go: a view of none of it would hold it
    // until the device's next report.
    this.buf = pos < this.buf.length ? this.buf.subarray(pos) : EMPTY;
    this.offset += pos;
    return frames;
  }
}
