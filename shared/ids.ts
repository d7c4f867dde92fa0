// Public identifiers: a short type prefix and 20 random base32 characters (100 bits), so ids
// cannot be guessed or enumerated and say what they name.
import { randomBytes } from 'node:crypto';

const ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';

export type IdPrefix = 'acc' | 'dev' | 'tok' | 'cmd' | 'whk' | 'inb' | 'usr' | 'gfn' | 'drv' | 'rul' | 'call' | 'inc' | 'exp' | 'wo' | 'note';

export function newId(prefix: IdPrefix): string {
  const bytes = randomBytes(20);
  let out = '';
  for (const b of bytes) out += ALPHABET[b & 31];
  return `${prefix}_${out}`;
}

/** Shape check before a lookup: a malformed id is simply "not found". */
export function isId(prefix: IdPrefix, value: string): boolean {
  return value.length === prefix.length + 21 && value.startsWith(`${prefix}_`) && /^[a-z0-9_]+$/.test(value);
}
