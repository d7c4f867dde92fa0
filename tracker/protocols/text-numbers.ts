// Numbers in the fields of the text protocols, read from their characters. Number() and parseInt()
// on a field's text first hash it (to see whether it is an array index), then parse it as any
// JavaScript numeral: for the short plain numbers of a report, most of the cost of decoding it.

export const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;

/** A hex digit's value from its character code, or -1. */
export function hexDigit(c: number): number {
  if (isDigit(c)) return c - 0x30;
  const lower = c | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x57 : -1;
}

/** The value of the decimal digits v[from, to), or NaN when one is not a digit. */
export function digitsValue(v: string, from = 0, to = v.length): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = v.charCodeAt(i);
    if (!isDigit(c)) return NaN;
    n = n * 10 + c - 0x30;
  }
  return n;
}

/** Exactly six decimal digits (a ddmmyy or hhmmss field). */
export function sixDigits(v: string | undefined): v is string {
  if (v?.length !== 6) return false;
  for (let i = 0; i < 6; i++) if (!isDigit(v.charCodeAt(i))) return false;
  return true;
}

/** The two digits at `at`, which the caller has checked. */
export const twoDigits = (v: string, at = 0): number => (v.charCodeAt(at) - 0x30) * 10 + v.charCodeAt(at + 1) - 0x30;

/**
 * "-?<digits>[.<digits>]" (v, or v[from, to)) as Number() reads it, else null. Up to 15 digits the value is their
 * integer over a power of ten: both are exact doubles, so the one division rounds as Number()
 * does; longer ones are left to Number(). (Reads stay within the text: a character read past its
 * end costs every later read at that place.)
 */
export function decimal(v: string, from = 0, end = v.length): number | null {
  const negative = end > from && v.charCodeAt(from) === 0x2d;
  let i = negative ? from + 1 : from;
  let c = 0;
  let value = 0;
  let scale = 1;
  const start = i;
  for (; i < end && isDigit((c = v.charCodeAt(i))); i++) value = value * 10 + c - 0x30;
  if (i === start) return null;
  if (i < end) {
    if (c !== 0x2e) return null;
    for (i++; i < end && isDigit((c = v.charCodeAt(i))); i++) {
      value = value * 10 + c - 0x30;
      scale *= 10;
    }
    if (scale === 1 || i < end) return null;
  }
  // The digits, less the sign and the point.
  if (end - start - (scale === 1 ? 0 : 1) > 15) return Number(v.slice(from, end));
  return negative ? -(value / scale) : value / scale;
}

/** Number(v), read from the characters when v is a plain decimal. */
export const toNumber = (v: string): number => decimal(v) ?? Number(v);

/**
 * The hex digits of v[from, to) as parseInt(…, 16) reads them, or null when that text is empty or
 * holds anything else. Up to 13 digits (52 bits) the sum is exact; longer ones are left to parseInt.
 */
export function hexValue(v: string, from = 0, to = v.length): number | null {
  if (to <= from) return null;
  let value = 0;
  for (let i = from; i < to; i++) {
    const d = hexDigit(v.charCodeAt(i));
    if (d < 0) return null;
    value = value * 16 + d;
  }
  return to - from > 13 ? parseInt(v.slice(from, to), 16) : value;
}
