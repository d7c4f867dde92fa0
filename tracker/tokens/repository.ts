// API token records: who holds which scopes, when last used, whether revoked. The token value
// itself is never stored: it is shown once, at creation.
import type { Scope } from '../../shared/scopes.js';
import type { Queryable } from '../storage/db.js';

export interface TokenRecord {
  id: string;
  accountId: string;
  name: string;
  scopes: Scope[];
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

interface Row {
  id: string;
  account_id: string;
  name: string;
  scopes: Scope[];
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

const toToken = (r: Row): TokenRecord => ({
  id: r.id,
  accountId: r.account_id,
  name: r.name,
  scopes: r.scopes,
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
  revokedAt: r.revoked_at,
});

export async function insertToken(db: Queryable, t: { id: string; accountId: string; name: string; scopes: Scope[] }): Promise<TokenRecord> {
  const rows = await db.query<Row>(
    'INSERT INTO api_tokens (id, account_id, name, scopes) VALUES ($1, $2, $3, $4) RETURNING *',
    [t.id, t.accountId, t.name, t.scopes],
  );
  return toToken(rows[0]!);
}

export async function countActiveTokens(db: Queryable, accountId: string): Promise<number> {
  const rows = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM api_tokens WHERE account_id = $1 AND revoked_at IS NULL', [accountId]);
  return rows[0]!.n;
}

export async function listTokens(db: Queryable, accountId: string): Promise<TokenRecord[]> {
  const rows = await db.query<Row>('SELECT * FROM api_tokens WHERE account_id = $1 ORDER BY created_at, id', [accountId]);
  return rows.map(toToken);
}

export async function findToken(db: Queryable, id: string): Promise<TokenRecord | null> {
  const rows = await db.query<Row>('SELECT * FROM api_tokens WHERE id = $1', [id]);
  return rows[0] ? toToken(rows[0]) : null;
}

/** Marks a token revoked; returns false when there is no such token. Revoking twice is harmless. */
export async function revokeToken(db: Queryable, id: string): Promise<TokenRecord | null> {
  const rows = await db.query<Row>('UPDATE api_tokens SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1 RETURNING *', [id]);
  return rows[0] ? toToken(rows[0]) : null;
}

/** Records use; written at most once a minute per token so hot tokens cost no write per request. */
export async function touchToken(db: Queryable, id: string): Promise<void> {
  await db.query(
    "UPDATE api_tokens SET last_used_at = now() WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')",
    [id],
  );
}
