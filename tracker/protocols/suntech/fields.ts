// Reading the semicolon-separated fields of a Suntech text report. A field that is missing or not
// a number ends the report the way a truncated binary frame does (TRUNCATED, caught at the top),
// so a report cut short or garbled yields nothing rather than a half-read position.
import { TRUNCATED, utcDate } from '../reader.js';

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
    if (v.trim() === '' || !Number.isFinite(n)) throw TRUNCATED;
    return n;
  }

  int(radix = 10): number {
    const v = this.text();
    if (!(radix === 16 ? /^[0-9a-fA-F]{1,12}$/ : /^[+-]?\d{1,10}$/).test(v)) throw TRUNCATED;
    return parseInt(v, radix);
  }

  /** "YYYYMMDD" then "HH:MM:SS", UTC. */
  dateTime(): Date {
    const date = /^(\d{4})(\d\d)(\d\d)$/.exec(this.text());
    const time = /^(\d\d):(\d\d):(\d\d)$/.exec(this.text());
    const d = date && time ? utcDate(+date[1]!, +date[2]!, +date[3]!, +time[1]!, +time[2]!, +time[3]!) : null;
    if (!d) throw TRUNCATED;
    return d;
  }
}
