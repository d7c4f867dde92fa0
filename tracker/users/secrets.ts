// Random secrets for sign-in sessions and password links, and the digests that are stored
// instead of them: a copy of the database does not let anyone sign in or set a password.
import { createHash, randomBytes } from 'node:crypto';

/** 256 random bits, URL-safe. */
export function randomSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** SHA-256, hex: what the database keeps of a secret (or of an email address used as a key). */
export function digest(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}
