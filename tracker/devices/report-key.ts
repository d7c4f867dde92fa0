// A unit's report key: the secret an OsmAnd phone sends (`key` parameter) with each report once one
// is set, so that knowing the identifier is no longer enough to report for the unit. Generated
// keys are 256 random bits; kept like webhook secrets, as a hash compared in constant time.
import { z } from 'zod';
import { hashSecret, newSecret, secretMatches } from '../inbound/secret.js';
import type { Queryable } from '../storage/db.js';
import { disconnectDevice } from './removal.js';

/** What an operator may give as a key instead of a generated one (what fits in a phone app's URL field). */
export const reportKey = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9._~-]{16,128}$/, 'key must be 16 to 128 letters, digits or . _ ~ -');

/**
 * Sets the unit's key (a new one unless given); returns it, the only time it is shown. Null: no
 * such unit. Callers have checked the unit's account.
 */
export async function setReportKey(db: Queryable, deviceId: string, given?: string): Promise<string | null> {
  const key = given ?? newSecret();
  const rows = await db.query('UPDATE devices SET report_key_hash = $2 WHERE id = $1 RETURNING id', [deviceId, hashSecret(key)]);
  if (rows.length === 0) return null;
  await disconnectDevice(db, deviceId); // a phone accepted under the old key must present the new one
  return key;
}

/** Reports without a key are accepted again; false: no such unit. */
export async function clearReportKey(db: Queryable, deviceId: string): Promise<boolean> {
  const rows = await db.query('UPDATE devices SET report_key_hash = NULL WHERE id = $1 RETURNING id', [deviceId]);
  if (rows.length === 0) return false;
  await disconnectDevice(db, deviceId);
  return true;
}

/** The hash of the unit's key; null when it has none. */
export async function reportKeyHash(db: Queryable, deviceId: string): Promise<Buffer | null> {
  const [row] = await db.query<{ h: Uint8Array | null }>('SELECT report_key_hash AS h FROM devices WHERE id = $1', [deviceId]);
  return row?.h ? Buffer.from(row.h) : null;
}

/** Whether a report may speak for the unit: always without a stored key, else only with that key. */
export function reportKeyAccepts(stored: Buffer | null, presented: string | undefined): boolean {
  if (stored === null) return true;
  return secretMatches(presented ?? '', stored);
}
