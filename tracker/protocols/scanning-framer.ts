// The stream loop every binary/text framer shares: buffer what arrives, ask the protocol how long
// the frame at the current offset is, cut it out, and skip one byte at a time past anything that
// cannot start a frame (counted as garbage), so a stream resynchronises after noise.
import type { Framer } from './types.js';

export abstract class ScanningFramer implements Framer {
  protected buf: Buffer = Buffer.alloc(0);
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
      frames.push(Buffer.from(this.buf.subarray(pos, pos + size)));
      pos += size;
    }
    this.buf = this.buf.subarray(pos);
    this.offset += pos;
    return frames;
  }
}
