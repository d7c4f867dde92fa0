// Input pieces the operator commands share: the account option and its lookup, an id argument, the
// --limit message.
import { z } from 'zod';
import { ApiError } from '../../shared/errors.js';
import { findAccount } from '../accounts/repository.js';
import type { Queryable } from '../storage/db.js';

export const accountId = z.string({ error: 'account is required (--account ID)' }).min(1, 'account is required (--account ID)');

export const webhookId = (usage: string) => z.string({ error: `webhook id is required (${usage})` }).min(1, `webhook id is required (${usage})`);

export const LIMIT = 'limit (--limit) must be a whole number from 1 to 1000';

export async function requireAccount(db: Queryable, id: string) {
  const account = await findAccount(db, id);
  if (!account) throw new ApiError('not_found', `no account ${id}`);
  return account;
}
