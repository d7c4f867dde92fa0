// Speed and heading are kept in `real` (32-bit) columns, which read back as the shortest decimal of
// their 32-bit value: a decoder's 24.076000000000001 km/h is stored and shown as 24.076. Positions are
// brought to that form as they arrive, so the devices list, events, webhooks and command replies show
// the same numbers as the history does.
import type { DecodedPosition } from '../protocols/types.js';

/**
 * The number a PostgreSQL `real` column gives back for x: the fewest significant digits that still
 * identify its 32-bit value, the nearest such decimal, and on an exact tie the one whose last digit
 * is even (toPrecision would round the tie away from zero).
 */
export function asReal(x: number): number {
  const f = Math.fround(x);
  if (Number.isInteger(f) || !Number.isFinite(f)) return f;
  let shortest = seen.get(f);
  if (shortest === undefined) {
    shortest = shortestOf(f);
    if (seen.size >= SEEN_MAX) seen.clear();
    seen.set(f, shortest);
  }
  return shortest;
}

/** A device's speeds and headings repeat (whole knots, tenths of a degree): the answers are kept. */
const seen = new Map<number, number>();
const SEEN_MAX = 10_000;

function shortestOf(f: number): number {
  for (let digits = 1; digits < 9; digits++) {
    const nearest = Number(f.toExponential(digits - 1));
    if (Math.fround(nearest) !== f) continue;
    const down = evenTieBelow(f, digits);
    return down !== null && Math.fround(down) === f ? down : nearest;
  }
  return Number(f.toExponential(8)); // nine digits always identify a 32-bit float
}

/** When f lies exactly halfway between two decimals of `digits` digits and the lower one ends in an even digit: that one. */
function evenTieBelow(f: number, digits: number): number | null {
  // Cheap first: a tie needs a 5 as the next digit.
  if (Math.abs(f).toExponential(digits).split('e')[0]!.at(-1) !== '5') return null;
  // A 32-bit float's exact decimal expansion fits in toExponential's 100 digits for speeds and headings.
  const [mantissa, exponent] = Math.abs(f).toExponential(99).split('e') as [string, string];
  const all = mantissa.replace('.', '');
  const tie = all[digits] === '5' && /^0*$/.test(all.slice(digits + 1));
  if (!tie || Number(all[digits - 1]) % 2 !== 0) return null;
  const kept = all.slice(0, digits);
  return Math.sign(f) * Number(`${kept[0]}.${kept.slice(1)}0e${exponent}`);
}

/**
 * A decoded position in that form, as a new object of one shape whatever the protocol: decoders
 * build theirs with their own fields in their own order, and a path every protocol shares slows
 * down once it meets more than a few shapes (a fleet of twelve protocols spent 64 µs of tracker CPU
 * per position against 56 µs with one shape: decisions, "Ingest: numbered IO parameters…").
 */
export function asStored(p: DecodedPosition): DecodedPosition {
  return { deviceTime: p.deviceTime, valid: p.valid, lat: p.lat, lng: p.lng, speed: asReal(p.speed), heading: asReal(p.heading), altitude: p.altitude, satellites: p.satellites, attributes: p.attributes };
}
