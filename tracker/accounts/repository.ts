// Accounts: the unit of isolation. Every other record belongs to exactly one.
import { newId } from '../../shared/ids.js';
import type { Queryable } from '../storage/db.js';

export interface Account {
  id: string;
  name: string;
  createdAt: Date;
}

interface Row {
  id: string;
  name: string;
  created_at: Date;
}

const toAccount = (r: Row): Account => ({ id: r.id, name: r.name, createdAt: r.created_at });

export async function createAccount(db: Queryable, name: string): Promise<Account> {
  const rows = await db.query<Row>('INSERT INTO accounts (id, name) VALUES ($1, $2) RETURNING *', [newId('acc'), name]);
  return toAccount(rows[0]!);
}

export async function findAccount(db: Queryable, id: string): Promise<Account | null> {
  const rows = await db.query<Row>('SELECT * FROM accounts WHERE id = $1', [id]);
  return rows[0] ? toAccount(rows[0]) : null;
}

/** Every account, oldest first, with how many devices each has. */
export async function listAccounts(db: Queryable): Promise<(Account & { devices: number })[]> {
  const rows = await db.query<Row & { devices: number }>(
    'SELECT a.id, a.name, a.created_at, (SELECT count(*)::int FROM devices d WHERE d.account_id = a.id) AS devices FROM accounts a ORDER BY a.created_at, a.id',
  );
  return rows.map((r) => ({ ...toAccount(r), devices: r.devices }));
}

export async function countAccounts(db: Queryable): Promise<number> {
  const rows = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM accounts');
  return rows[0]!.n;
}

/**
 * Called in the transaction of every change to an account's geofences or rules: the event engine
 * reloads an account's compiled inputs when this version moves (events/account-inputs.ts).
 */
export async function bumpRulesVersion(tx: Queryable, accountId: string): Promise<void> {
  await tx.query('UPDATE accounts SET rules_version = rules_version + 1 WHERE id = $1', [accountId]);
}
