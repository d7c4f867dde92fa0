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

/**
 * The columns a Device is made of: the row also holds the device's running state (counters, latest
 * telemetry and alarms: positions/device-state.ts), which a lookup would fetch and parse for nothing.
 */
const DEVICE_COLUMNS = 'id, account_id, name, plate, imei, protocol, status, last_lat, last_lng, last_speed, last_heading, last_update, created_at';

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
      `INSERT INTO devices (id, account_id, imei, name, plate) VALUES ($1, $2, $3, $4, $5) RETURNING ${DEVICE_COLUMNS}`,
      [newId('dev'), d.accountId, d.imei, d.name, d.plate ?? ''],
    );
    return toDevice(rows[0]!);
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(d.imei);
    throw err;
  }
}

/** What a change to a device may set; fields left out are unchanged. */
export interface DeviceChanges {
  name?: string | undefined;
  plate?: string | undefined;
  imei?: string | undefined;
}

/**
 * Changes a device's name, plate or identifier; null when the account has no such device. An
 * identifier already registered (to any account) is a 409.
 */
export async function updateDevice(db: Queryable, accountId: string, id: string, changes: DeviceChanges): Promise<Device | null> {
  try {
    const rows = await db.query<DeviceRow>(
      `UPDATE devices SET name = coalesce($3, name), plate = coalesce($4, plate), imei = coalesce($5, imei) WHERE account_id = $1 AND id = $2 RETURNING ${DEVICE_COLUMNS}`,
      [accountId, id, changes.name ?? null, changes.plate ?? null, changes.imei ?? null],
    );
    return rows[0] ? toDevice(rows[0]) : null;
  } catch (err) {
    if (isUniqueViolation(err) && changes.imei !== undefined) throw conflict(changes.imei);
    throw err;
  }
}

/**
 * Adds several devices to one account in one statement. Returns the devices added by identifier; an
 * identifier already registered (to any account) is left out, for the caller to report as a conflict.
 */
export async function addDevices(db: Queryable, accountId: string, items: readonly Omit<NewDevice, 'accountId'>[]): Promise<Map<string, Device>> {
  if (items.length === 0) return new Map();
  const rows = await db.query<DeviceRow>(
    `INSERT INTO devices (id, account_id, imei, name, plate)
     SELECT id, $1, imei, name, plate FROM unnest($2::text[], $3::text[], $4::text[], $5::text[]) AS i (id, imei, name, plate)
     ON CONFLICT (imei) DO NOTHING RETURNING ${DEVICE_COLUMNS}`,
    [accountId, items.map(() => newId('dev')), items.map((i) => i.imei), items.map((i) => i.name), items.map((i) => i.plate ?? '')],
  );
  return new Map(rows.map((r) => [r.imei, toDevice(r)]));
}

/** The 409 of an identifier already registered: it names the identifier, never who holds it. */
export const conflict = (imei: string) => new ApiError('conflict', `a device with identifier ${imei} already exists`);

export async function listDevices(db: Queryable, accountId: string): Promise<Device[]> {
  const rows = await db.query<DeviceRow>(`SELECT ${DEVICE_COLUMNS} FROM devices WHERE account_id = $1 ORDER BY lower(name), id`, [accountId]);
  return rows.map(toDevice);
}

export async function findDeviceByImei(db: Queryable, imei: string): Promise<Device | null> {
  const rows = await db.query<DeviceRow>(`SELECT ${DEVICE_COLUMNS} FROM devices WHERE imei = $1`, [imei]);
  return rows[0] ? toDevice(rows[0]) : null;
}

/** A device of any account, by id: for the operator, who acts across accounts. */
export async function findAnyDevice(db: Queryable, id: string): Promise<Device | null> {
  const rows = await db.query<DeviceRow>(`SELECT ${DEVICE_COLUMNS} FROM devices WHERE id = $1`, [id]);
  return rows[0] ? toDevice(rows[0]) : null;
}

export async function findDevice(db: Queryable, accountId: string, id: string): Promise<Device | null> {
  const rows = await db.query<DeviceRow>(`SELECT ${DEVICE_COLUMNS} FROM devices WHERE account_id = $1 AND id = $2`, [accountId, id]);
  return rows[0] ? toDevice(rows[0]) : null;
}
