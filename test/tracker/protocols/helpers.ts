// Shared test helpers: a fresh protocol state and a deterministic PRNG for fuzzing.
import type { ProtocolState } from '../../../tracker/protocols/types.js';

export function protocolState(identity?: string): ProtocolState {
  return identity ? { identity, state: {} } : { state: {} };
}

export function hex(text: string): Buffer {
  return Buffer.from(text.replace(/\s+/g, ''), 'hex');
}

/** mulberry32: small, fast and repeatable. */
export function prng(seed: number): () => number {
  // A local reference: global lookups are slow inside the test runner's VM context.
  const imul = Math.imul;
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = imul(t ^ (t >>> 15), t | 1);
    t ^= t + imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
