// Issuing an API token: the record is stored, the signed value is returned to be shown once.
import type { KeyObject } from 'node:crypto';
import { newId } from '../../shared/ids.js';
import type { Scope } from '../../shared/scopes.js';
import { signToken } from '../../shared/tokens.js';
import type { Queryable } from '../storage/db.js';
import { insertToken, type TokenRecord } from './repository.js';

export async function issueToken(db: Queryable, privateKey: KeyObject, t: { accountId: string; name: string; scopes: Scope[] }): Promise<{ record: TokenRecord; token: string }> {
  const id = newId('tok');
  const record = await insertToken(db, { id, ...t });
  return { record, token: signToken({ tokenId: id, accountId: t.accountId, scopes: t.scopes }, privateKey) };
}
