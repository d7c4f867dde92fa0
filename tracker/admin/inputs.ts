// Input pieces the operator commands share: validated text, the account option, the account lookup.
import { z } from 'zod';
import { ApiError } from '../../shared/errors.js';
import { findAccount } from '../accounts/repository.js';
import type { Queryable } from '../storage/db.js';

export const text = (what: string, max: number) =>
  z.string({ error: `${what} is required` }).trim().min(1, `${what} must not be empty`).max(max, `${what} must be at most ${max} characters`);

export const accountId = z.string({ error: 'account is required (--account ID)' }).min(1, 'account is required (--account ID)');

export async function requireAccount(db: Queryable, id: string) {
  const account = await findAccount(db, id);
  if (!account) throw new ApiError('not_found', `no account ${id}`);
  return account;
}
