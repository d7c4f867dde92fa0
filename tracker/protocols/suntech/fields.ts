// Reading the semicolon-separated fields of a Suntech text report. A field that is missing or not
// a number ends the report the way a truncated binary frame does (TRUNCATED, caught at the top),
// so a report cut short or garbled yields nothing rather than a half-read position. Integers and
// times are read digit by digit: every report has a dozen of them.
import { TRUNCATED, utcDate } from '../reader.js';
import { digitsValue, hexValue } from '../text-numbers.js';

const PLUS = 0x2b;
const MINUS = 0x2d;
const COLON = 0x3a;

/** 1 to 10 decimal digits after an optional sign, or NaN. */
function decimal(v: string): number {
  const first = v.charCodeAt(0);
  const from = first === PLUS || first === MINUS ? 1 : 0;
  if (v.length - from < 1 || v.length - from > 10) return NaN;
  const n = digitsValue(v, from);
  return first === MINUS ? -n : n;
}

/** 1 to 12 hex digits, or NaN. */
const hex = (v: string): number => (v.length > 12 ? NaN : (hexValue(v) ?? NaN));

export class Fields {
  constructor(
    readonly values: string[],
    public index = 0,
  ) {}

  get remaining(): number {
    return this.values.length - this.index;
  }

  peek(): string | undefined {
    return this.values[this.index];
  }

  text(): string {
    const v = this.values[this.index++];
    if (v === undefined) throw TRUNCATED;
    return v;
  }

  skip(n = 1): void {
    this.index += n;
  }

  number(): number {
    const v = this.text();
    const n = Number(v);
    // Number() reads a blank field as 0: only a 0 needs the field looked at again.
    if (!Number.isFinite(n) || (n === 0 && v.trim() === '')) throw TRUNCATED;
    return n;
  }

  int(radix = 10): number {
    const v = this.text();
    const n = radix === 16 ? hex(v) : decimal(v);
    if (Number.isNaN(n)) throw TRUNCATED;
    return n;
  }

  /** "YYYYMMDD" then "HH:MM:SS", UTC. */
  dateTime(): Date {
    const date = this.text();
    const time = this.text();
    const shaped = date.length === 8 && time.length === 8 && time.charCodeAt(2) === COLON && time.charCodeAt(5) === COLON;
    // A non-digit makes a field NaN, which no date takes.
    const d = shaped ? utcDate(digitsValue(date, 0, 4), digitsValue(date, 4, 6), digitsValue(date, 6, 8), digitsValue(time, 0, 2), digitsValue(time, 3, 5), digitsValue(time, 6, 8)) : null;
    if (!d) throw TRUNCATED;
    return d;
  }
}
