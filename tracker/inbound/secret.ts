// Inbound webhook secrets: 32 random bytes (base64url), shown once and kept only as their SHA-256. A slow
// password hash buys nothing for a 256-bit random value: no one can guess it, with or without the
// hash. Checking costs the same whether the webhook exists or not.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

// Compared against when the webhook id is unknown, so that case does the same work as a wrong secret.
const NO_WEBHOOK = hashSecret(newSecret());

/** Constant-time check of a presented secret against a stored hash (null: no such webhook). */
export function secretMatches(presented: string, stored: Buffer | null): boolean {
  const same = timingSafeEqual(hashSecret(presented), stored ?? NO_WEBHOOK);
  return same && stored !== null;
}
