// Drivers, always read and written within one account, and their assignment to units: a unit has
// at most one driver and a driver drives at most one unit (assigning moves them).
import { ApiError } from '../../shared/errors.js';
import { isUniqueViolation } from '../../shared/db-errors.js';
import { newId } from '../../shared/ids.js';
import type { Db, Queryable } from '../storage/db.js';

export const MAX_DRIVERS_PER_ACCOUNT = 10_000;

export interface Driver {
  id: string;
  accountId: string;
  name: string;
  phone: string;
  licenseNumber: string;
  uniqueId: string | null;
  /** The unit the driver is assigned to. */
  deviceId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface DriverInput {
  name: string;
  phone: string;
  licenseNumber: string;
  uniqueId: string | null;
}

interface Row {
  id: string;
  account_id: string;
  name: string;
  phone: string;
  license_number: string;
  unique_id: string | null;
  device_id: string | null;
  created_at: Date;
  updated_at: Date;
}

const toDriver = (r: Row): Driver => ({
  id: r.id,
  accountId: r.account_id,
  name: r.name,
  phone: r.phone,
  licenseNumber: r.license_number,
  uniqueId: r.unique_id,
  deviceId: r.device_id,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const SELECT = 'SELECT dr.*, d.id AS device_id FROM drivers dr LEFT JOIN devices d ON d.driver_id = dr.id';

function uniqueIdTaken(err: unknown, input: DriverInput): never {
  if (isUniqueViolation(err)) throw new ApiError('conflict', `another driver of this account has uniqueId ${input.uniqueId ?? ''}`);
  throw err;
}

/** Oldest first; `after` continues past a (createdAt, id). */
export async function listDrivers(db: Queryable, accountId: string, after: { createdAt: Date; id: string } | null, limit: number): Promise<Driver[]> {
  const rows = after
    ? await db.query<Row>(`${SELECT} WHERE dr.account_id = $1 AND (dr.created_at, dr.id) > ($2, $3) ORDER BY dr.created_at, dr.id LIMIT $4`, [accountId, after.createdAt.toISOString(), after.id, limit])
    : await db.query<Row>(`${SELECT} WHERE dr.account_id = $1 ORDER BY dr.created_at, dr.id LIMIT $2`, [accountId, limit]);
  return rows.map(toDriver);
}

export async function findDriver(db: Queryable, accountId: string, id: string): Promise<Driver | null> {
  const rows = await db.query<Row>(`${SELECT} WHERE dr.account_id = $1 AND dr.id = $2`, [accountId, id]);
  return rows[0] ? toDriver(rows[0]) : null;
}

export async function createDriver(db: Db, accountId: string, input: DriverInput): Promise<Driver> {
  return db
    .transaction(async (tx) => {
      await tx.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [accountId]); // the count below holds
      const [{ n }] = (await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM drivers WHERE account_id = $1', [accountId])) as [{ n: number }];
      if (n >= MAX_DRIVERS_PER_ACCOUNT) throw new ApiError('conflict', `an account may have at most ${MAX_DRIVERS_PER_ACCOUNT} drivers`);
      const id = newId('drv');
      await tx.query('INSERT INTO drivers (id, account_id, name, phone, license_number, unique_id) VALUES ($1, $2, $3, $4, $5, $6)', [
        id,
        accountId,
        input.name,
        input.phone,
        input.licenseNumber,
        input.uniqueId,
      ]);
      return (await findDriver(tx, accountId, id))!;
    })
    .catch((err: unknown) => uniqueIdTaken(err, input));
}

export async function replaceDriver(db: Db, accountId: string, id: string, input: DriverInput): Promise<Driver | null> {
  try {
    const rows = await db.query<{ id: string }>(
      'UPDATE drivers SET name = $3, phone = $4, license_number = $5, unique_id = $6, updated_at = now() WHERE account_id = $1 AND id = $2 RETURNING id',
      [accountId, id, input.name, input.phone, input.licenseNumber, input.uniqueId],
    );
    return rows[0] ? findDriver(db, accountId, id) : null;
  } catch (err) {
    return uniqueIdTaken(err, input);
  }
}

/** Deleting a driver unassigns them from their unit. */
export async function deleteDriver(db: Queryable, accountId: string, id: string): Promise<boolean> {
  return (await db.query('DELETE FROM drivers WHERE account_id = $1 AND id = $2 RETURNING id', [accountId, id])).length > 0;
}

/** The unit's driver, or null. */
export async function deviceDriver(db: Queryable, deviceId: string): Promise<string | null> {
  const rows = await db.query<{ driver_id: string | null }>('SELECT driver_id FROM devices WHERE id = $1', [deviceId]);
  return rows[0]?.driver_id ?? null;
}

/**
 * Puts a driver on a unit (taking them off any other unit), or takes the unit's driver off with
 * null. The device must already be known to belong to the account; the driver is checked here.
 */
export async function assignDriver(db: Db, accountId: string, deviceId: string, driverId: string | null): Promise<void> {
  await db.transaction(async (tx) => {
    if (driverId !== null) {
      const found = await tx.query('SELECT id FROM drivers WHERE account_id = $1 AND id = $2 FOR UPDATE', [accountId, driverId]);
      if (found.length === 0) throw new ApiError('bad_request', `invalid body field "driverId": no driver ${driverId}`);
      await tx.query('UPDATE devices SET driver_id = NULL WHERE driver_id = $1 AND id <> $2', [driverId, deviceId]);
    }
    await tx.query('UPDATE devices SET driver_id = $3 WHERE account_id = $1 AND id = $2', [accountId, deviceId, driverId]);
  });
}
