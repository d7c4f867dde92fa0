// Positions as the API shows them, written as JSON bytes straight from binary COPY tuples of a
// shape's columns: the numbers arrive as PostgreSQL's own text of the stored values (so they read
// exactly as stored) and are copied byte for byte; the time arrives as microseconds and is written as
// ISO 8601 UTC with milliseconds, as JavaScript's toISOString() does, at a fraction of the cost of
// PostgreSQL's to_char. The attributes arrive as PostgreSQL's text of the jsonb, which is JSON
// already, and are copied as they are. No per-row object or string is made, which is what lets a
// 1.5-million-row history run at the speed of the database.

/** `lean`: the spec's five fields; `full`: with the fix's quality, the telemetry and the filter flag. */
export const HISTORY_SHAPES = ['lean', 'full'] as const;
export type HistoryShape = (typeof HISTORY_SHAPES)[number];

/** The columns, in this order, that each shape's tuples must carry. */
export const HISTORY_COLUMNS: Record<HistoryShape, string> = {
  lean: 'lat::text, lng::text, speed::text, heading::text, device_time',
  full: 'lat::text, lng::text, speed::text, heading::text, device_time, valid, altitude::text, satellites::text, attributes::text, filtered',
};
const FIELDS: Record<HistoryShape, number> = { lean: 5, full: 10 };

const ascii = (s: string) => Buffer.from(s, 'latin1');
const LAT = ascii('{"lat":');
const LNG = ascii(',"lng":');
const SPEED = ascii(',"speed":');
const HEADING = ascii(',"heading":');
const TIMESTAMP = ascii(',"timestamp":"');
const VALID = ascii('","valid":');
const ALTITUDE = ascii(',"altitude":');
const SATELLITES = ascii(',"satellites":');
const ATTRIBUTES = ascii(',"attributes":');
const FILTERED = ascii(',"filtered":"');
const TRUE = ascii('true');
const FALSE = ascii('false');
const NULL = ascii('null');
const ZERO = 0x30;
/** PostgreSQL counts timestamps in microseconds from 2000-01-01 UTC. */
const PG_EPOCH_MS = 946_684_800_000;
const DAY_MS = 86_400_000;
/**
 * How much larger than its tuples a batch's JSON can be. Lean: a tuple is 30 bytes and its numbers'
 * text; its JSON is 71 bytes and the same text. With at least one byte per number that is at most 75
 * bytes of JSON for 34 of tuple: never more than 2.5 times. Full: a tuple is at least 55 bytes (51 and
 * a byte per number); its JSON, besides the texts copied from it, at most 155 (names, `false`, `null`
 * for a missing altitude and satellites or a non-finite number, the quotes around a filter's name):
 * under 3 times.
 */
const GROWTH: Record<HistoryShape, number> = { lean: 2.5, full: 3.5 };

export class PositionsJson {
  /** Positions written so far. */
  rows = 0;
  /** Time of the last position written, in microseconds from 2000-01-01 (for keyset paging). */
  lastMicros = 0;
  private out = Buffer.alloc(0);
  private used = 0;
  private dayStart = Number.NaN;
  private readonly day = Buffer.alloc(11); // "YYYY-MM-DDT" of dayStart
  private readonly fields: number;

  constructor(private readonly shape: HistoryShape) {
    this.fields = FIELDS[shape];
  }

  /**
   * Writes the tuples' positions, each preceded by a comma but the first ever written, and returns the
   * bytes. With `max`, stops after that many positions in all, and `more` says tuples were left.
   */
  write(tuples: Buffer, max = Infinity): { json: Buffer; more: boolean } {
    this.out = Buffer.allocUnsafe(Math.ceil(tuples.length * GROWTH[this.shape]));
    this.used = 0;
    let p = 0;
    while (p < tuples.length) {
      if (this.rows >= max) return { json: this.done(), more: true };
      if (tuples.readInt16BE(p) !== this.fields) throw new Error(`positions: a tuple must have ${this.fields} fields`);
      p += 2;
      if (this.rows++ > 0) this.out[this.used++] = 0x2c;
      p = this.number(LAT, tuples, p);
      p = this.number(LNG, tuples, p);
      p = this.number(SPEED, tuples, p);
      p = this.number(HEADING, tuples, p);
      this.bytes(TIMESTAMP, 0, TIMESTAMP.length);
      if (tuples.readInt32BE(p) !== 8) throw new Error('positions: the time must be a timestamp');
      const micros = tuples.readInt32BE(p + 4) * 4_294_967_296 + tuples.readUInt32BE(p + 8);
      this.time(Math.floor(micros / 1000) + PG_EPOCH_MS);
      this.lastMicros = micros;
      p += 12;
      if (this.shape === 'full') p = this.telemetry(tuples, p);
      else this.out[this.used++] = 0x22;
      this.out[this.used++] = 0x7d;
    }
    return { json: this.done(), more: false };
  }

  /** The ISO text of lastMicros, to the microsecond. */
  lastTime(): string {
    const ms = Math.floor(this.lastMicros / 1000);
    const iso = new Date(ms + PG_EPOCH_MS).toISOString();
    return `${iso.slice(0, -1)}${String(this.lastMicros - ms * 1000).padStart(3, '0')}Z`;
  }

  private done(): Buffer {
    return this.out.subarray(0, this.used);
  }

  private number(label: Buffer, tuples: Buffer, p: number): number {
    const length = tuples.readInt32BE(p);
    if (length < 1) throw new Error('positions: a number is missing');
    this.bytes(label, 0, label.length);
    if (nonFinite(tuples, p + 4)) this.bytes(NULL, 0, NULL.length);
    else this.bytes(tuples, p + 4, length);
    return p + 4 + length;
  }

  /** After the time's closing quote: valid, altitude, satellites, attributes and the filter flag when set. */
  private telemetry(tuples: Buffer, p: number): number {
    this.bytes(VALID, 0, VALID.length);
    if (tuples.readInt32BE(p) !== 1) throw new Error('positions: valid must be a boolean');
    const valid = tuples[p + 4] === 1 ? TRUE : FALSE;
    this.bytes(valid, 0, valid.length);
    p = this.nullable(ALTITUDE, tuples, p + 5);
    p = this.nullable(SATELLITES, tuples, p);
    this.bytes(ATTRIBUTES, 0, ATTRIBUTES.length);
    const attributes = tuples.readInt32BE(p);
    if (attributes < 2) throw new Error('positions: the attributes are missing');
    // Hundreds of bytes, unlike the numbers: a native copy beats the byte loop here.
    this.used += tuples.copy(this.out, this.used, p + 4, p + 4 + attributes);
    p += 4 + attributes;
    const filtered = tuples.readInt32BE(p);
    if (filtered < 0) return p + 4;
    // The filter's name is one of ours (zero, future, jump): nothing to escape.
    this.bytes(FILTERED, 0, FILTERED.length);
    this.bytes(tuples, p + 4, filtered);
    this.out[this.used++] = 0x22;
    return p + 4 + filtered;
  }

  /** A number that may be missing (NULL): written as null. */
  private nullable(label: Buffer, tuples: Buffer, p: number): number {
    if (tuples.readInt32BE(p) >= 0) return this.number(label, tuples, p);
    this.bytes(label, 0, label.length);
    this.bytes(NULL, 0, NULL.length);
    return p + 4;
  }

  private bytes(from: Buffer, start: number, length: number): void {
    const out = this.out;
    let at = this.used;
    for (let i = start, end = start + length; i < end; i++) out[at++] = from[i]!;
    this.used = at;
  }

  private time(ms: number): void {
    let t = ms - this.dayStart;
    if (!(t >= 0 && t < DAY_MS)) {
      this.dayStart = ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS);
      this.day.write(new Date(this.dayStart).toISOString().slice(0, 11), 'latin1');
      t = ms - this.dayStart;
    }
    this.bytes(this.day, 0, 11);
    const out = this.out;
    let at = this.used;
    const s = Math.floor(t / 1000);
    const h = Math.floor(s / 3600);
    const m = Math.floor(s / 60) % 60;
    const sec = s % 60;
    const milli = t % 1000;
    out[at++] = ZERO + Math.floor(h / 10);
    out[at++] = ZERO + (h % 10);
    out[at++] = 0x3a;
    out[at++] = ZERO + Math.floor(m / 10);
    out[at++] = ZERO + (m % 10);
    out[at++] = 0x3a;
    out[at++] = ZERO + Math.floor(sec / 10);
    out[at++] = ZERO + (sec % 10);
    out[at++] = 0x2e;
    out[at++] = ZERO + Math.floor(milli / 100);
    out[at++] = ZERO + (Math.floor(milli / 10) % 10);
    out[at++] = ZERO + (milli % 10);
    out[at++] = 0x5a;
    this.used = at;
  }
}

/**
 * PostgreSQL writes a non-finite float as Infinity, -Infinity or NaN, which JSON has no words for: such
 * a stored value is shown as null (the product refuses them on the way in; older rows may hold one).
 */
function nonFinite(text: Buffer, at: number): boolean {
  const first = text[at];
  return first === 0x49 || first === 0x4e || (first === 0x2d && text[at + 1] === 0x49); // I, N, -I
}
