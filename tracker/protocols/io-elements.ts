// The `io` object of protocols whose parameters are numbered (Teltonika, Ruptela). V8 keeps an
// object's array-index keys in an array as long as the largest of them: a dozen parameters with ids
// in the hundreds took 3–5 KB per record, and records live long enough to reach the old generation.
// An object that once held an index past 2^29 keeps such keys in a dictionary for good, about a
// tenth of that. Keys, values and their order (ascending ids, then names) are the same either way.
import type { Telemetry } from '../positions/telemetry.js';

/** An index no parameter id reaches. */
const DICTIONARY_INDEX = 2 ** 32 - 2;

/** An empty `io` object that keeps numbered parameters compactly. */
export function ioElements(): NonNullable<Telemetry['io']> {
  const io: NonNullable<Telemetry['io']> = {};
  io[DICTIONARY_INDEX] = 0;
  delete io[DICTIONARY_INDEX];
  return io;
}
