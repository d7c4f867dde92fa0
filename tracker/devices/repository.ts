// Devices, always read and written within one account.
import { isUniqueViolation } from '../../shared/db-errors.js';
import { ApiError } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import type { Queryable } from '../storage/db.js';

export interface Device {
  id: string;
  accountId: string;
  name: string;
  plate: string;
  imei: string;
  protocol: string | null;
  status: 'online' | 'offline';
  lastLat: number | null;
  lastLng: number | null;
  lastSpeed: number;
  lastHeading: number | null;
  lastUpdate: Date | null;
  createdAt: Date;
}

export interface DeviceRow {
  id: string;
  account_id: string;
  name: string;
  plate: string;
  imei: string;
  protocol: string | null;
  status: 'online' | 'offline';
  last_lat: number | null;
  last_lng: number | null;
  last_speed: number;
  last_heading: number | null;
  last_update: Date | null;
  created_at: Date;
}

export const toDevice = (r: DeviceRow): Device => ({
  id: r.id,
  accountId: r.account_id,
  name: r.name,
  plate: r.plate,
  imei: r.imei,
  protocol: r.protocol,
  status: r.status,
  lastLat: r.last_lat,
  lastLng: r.last_lng,
  lastSpeed: r.last_speed,
  lastHeading: r.last_heading,
  lastUpdate: r.last_update,
  createdAt: r.created_at,
});

export interface NewDevice {
  accountId: string;
  imei: string;
  name: string;
  plate?: string;
}

/** Adds a device; an identifier already registered (to any account) is a 409. */
export async function addDevice(db: Queryable, d: NewDevice): Promise<Device> {
  try {
    const rows = await db.query<DeviceRow>(
      'INSERT INTO devices (id, account_id, imei, name, plate) VALUES ($1, $2, $3, $4, $5) RETURNING *',
      [newId('dev'), d.accountId, d.imei, d.name, d.plate ?? ''],
    );
    return toDevice(rows[0]!);
  } catch (err) {
    if (isUniqueViolation(err)) throw new ApiError('conflict', `a device with identifier ${d.imei} already exists`);
    throw err;
  }
}

/** Changes a device's name and plate; null when the account has no such device. */
export async function updateDevice(db: Queryable, accountId: string, id: string, changes: { name: string; plate: string }): Promise<Device | null> {
  const rows = await db.query<DeviceRow>('UPDATE devices SET name = $3, plate = $4 WHERE account_id = $1 AND id = $2 RETURNING *', [accountId, id, changes.name, changes.plate]);
  return rows[0] ? toDevice(rows[0]) : null;
}

export async function listDevices(db: Queryable, accountId: string): Promise<Device[]> {
  const rows = await db.query<DeviceRow>('SELECT * FROM devices WHERE account_id = $1 ORDER BY lower(name), id', [accountId]);
  return rows.map(toDevice);
}

export async function findDeviceByImei(db: Queryable, imei: string): Promise<Device | null> {
  const rows = await db.query<DeviceRow>('SELECT * FROM devices WHERE imei = $1', [imei]);
  return rows[0] ? toDevice(rows[0]) : null;
}

export async function findDevice(db: Queryable, accountId: string, id: string): Promise<Device | null> {
  const rows = await db.query<DeviceRow>('SELECT * FROM devices WHERE account_id = $1 AND id = $2', [accountId, id]);
  return rows[0] ? toDevice(rows[0]) : null;
}
