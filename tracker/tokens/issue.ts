// Issuing an API token: the record is stored, the signed value is returned to be shown once. Rate
// limits are counted per token, so an account holds at most MAX_TOKENS_PER_ACCOUNT active
// (unrevoked) tokens: it cannot multiply its limits by making more.
import type { KeyObject } from 'node:crypto';
import type { TrackerConfig } from '../../shared/config.js';
import { ApiError } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import type { Scope } from '../../shared/scopes.js';
import { signToken } from '../../shared/tokens.js';
import type { Db } from '../storage/db.js';
import { countActiveTokens, insertToken, type TokenRecord } from './repository.js';

export type TokenSettings = Pick<TrackerConfig, 'MAX_TOKENS_PER_ACCOUNT'>;

export async function issueToken(
  db: Db,
  privateKey: KeyObject,
  t: { accountId: string; name: string; scopes: Scope[] },
  settings: TokenSettings,
): Promise<{ record: TokenRecord; token: string }> {
  const id = newId('tok');
  const record = await db.transaction(async (tx) => {
    // The account's row is locked, so two creations at once cannot both pass the count.
    await tx.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [t.accountId]);
    const max = settings.MAX_TOKENS_PER_ACCOUNT;
    if ((await countActiveTokens(tx, t.accountId)) >= max) {
      throw new ApiError('conflict', `this account already has ${max} active API tokens, the most it may have: revoke one it no longer uses first`);
    }
    return insertToken(tx, { id, ...t });
  });
  return { record, token: signToken({ tokenId: id, accountId: t.accountId, scopes: t.scopes }, privateKey) };
}
