// The separated fields of a text message, read in place: a field is made a string only where one
// is kept, and its number is read from the text itself. Splitting a report made a string of every
// field, most of them only to be read as a number once.
import { decimal } from './text-numbers.js';

export class TextFields {
  /** Where each field ends: at its separator, the last at the end of the text read. */
  protected readonly ends: number[] = [];

  /** The fields of text[from, to), as text.slice(from, to).split(separator) would give them. */
  constructor(
    readonly text: string,
    separator: string,
    from = 0,
    to = text.length,
  ) {
    this.ends.push(from - 1);
    for (let at = text.indexOf(separator, from); at >= 0 && at < to; at = text.indexOf(separator, at + 1)) this.ends.push(at);
    this.ends.push(to);
  }

  /** How many fields there are; lowered, the last ones are dropped. */
  get length(): number {
    return this.ends.length - 1;
  }
  set length(n: number) {
    this.ends.length = n + 1;
  }

  has(k: number): boolean {
    return k < this.length;
  }
  start(k: number): number {
    return this.ends[k]! + 1;
  }
  end(k: number): number {
    return this.ends[k + 1]!;
  }
  /** The field as a string, or undefined past the last. */
  string(k: number): string | undefined {
    return this.has(k) ? this.text.slice(this.start(k), this.end(k)) : undefined;
  }
  /** Whether the field is `value`. */
  is(k: number, value: string): boolean {
    return this.has(k) && this.end(k) - this.start(k) === value.length && this.text.startsWith(value, this.start(k));
  }
  includes(k: number, char: string): boolean {
    if (!this.has(k)) return false;
    const at = this.text.indexOf(char, this.start(k));
    return at >= 0 && at < this.end(k);
  }
  /** The field as a plain decimal ("-?<digits>[.<digits>]"), else null. */
  decimal(k: number): number | null {
    return this.has(k) ? decimal(this.text, this.start(k), this.end(k)) : null;
  }
  /** Number() of the field. */
  number(k: number): number {
    return this.decimal(k) ?? Number(this.string(k));
  }
}
