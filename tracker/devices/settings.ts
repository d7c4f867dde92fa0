// What the event rules need to know about a unit (its speed limit, fuel tank and thresholds,
// maintenance schedule) and the account's default speed limit.
import type { Db, Queryable } from '../storage/db.js';

export interface Maintenance {
  odometer: { startKm: number; everyKm: number } | null;
  engineHours: { start: number; every: number } | null;
}

export interface DeviceSettings {
  speedLimitKmh: number | null;
  fuelTankLitres: number | null;
  fuelLowLitres: number | null;
  fuelLowPercent: number | null;
  maintenance: Maintenance;
}

/** Absent fields are left as they are; null clears a setting. */
export type DeviceSettingsPatch = Partial<Omit<DeviceSettings, 'maintenance'>> & { maintenance?: Partial<Maintenance> | undefined };

interface Row {
  speed_limit_kmh: number | null;
  fuel_tank_litres: number | null;
  fuel_low_litres: number | null;
  fuel_low_percent: number | null;
  maintenance: Partial<Maintenance>;
}

const NONE: DeviceSettings = { speedLimitKmh: null, fuelTankLitres: null, fuelLowLitres: null, fuelLowPercent: null, maintenance: { odometer: null, engineHours: null } };

export async function deviceSettings(db: Queryable, deviceId: string): Promise<DeviceSettings> {
  const [r] = await db.query<Row>('SELECT speed_limit_kmh, fuel_tank_litres, fuel_low_litres, fuel_low_percent, maintenance FROM device_settings WHERE device_id = $1', [deviceId]);
  if (!r) return NONE;
  return {
    speedLimitKmh: r.speed_limit_kmh,
    fuelTankLitres: r.fuel_tank_litres,
    fuelLowLitres: r.fuel_low_litres,
    fuelLowPercent: r.fuel_low_percent,
    maintenance: { odometer: r.maintenance.odometer ?? null, engineHours: r.maintenance.engineHours ?? null },
  };
}

export async function updateDeviceSettings(db: Db, deviceId: string, patch: DeviceSettingsPatch): Promise<DeviceSettings> {
  return db.transaction(async (tx) => {
    await tx.query('INSERT INTO device_settings (device_id) VALUES ($1) ON CONFLICT DO NOTHING', [deviceId]);
    await tx.query('SELECT device_id FROM device_settings WHERE device_id = $1 FOR UPDATE', [deviceId]);
    const current = await deviceSettings(tx, deviceId);
    const defined = <T extends object>(o: T) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
    const next: DeviceSettings = { ...current, ...defined(patch), maintenance: { ...current.maintenance, ...defined(patch.maintenance ?? {}) } };
    const maintenance = Object.fromEntries(Object.entries(next.maintenance).filter(([, v]) => v !== null));
    await tx.query(
      `UPDATE device_settings SET speed_limit_kmh = $2, fuel_tank_litres = $3, fuel_low_litres = $4, fuel_low_percent = $5, maintenance = $6, updated_at = now()
       WHERE device_id = $1`,
      [deviceId, next.speedLimitKmh, next.fuelTankLitres, next.fuelLowLitres, next.fuelLowPercent, JSON.stringify(maintenance)],
    );
    return next;
  });
}

export interface AccountSettings {
  /** Speed limit of units without their own; null means the built-in 90 km/h. */
  speedLimitKmh: number | null;
}

export async function accountSettings(db: Queryable, accountId: string): Promise<AccountSettings> {
  const [r] = await db.query<{ speed_limit_kmh: number | null }>('SELECT speed_limit_kmh FROM accounts WHERE id = $1', [accountId]);
  return { speedLimitKmh: r?.speed_limit_kmh ?? null };
}

/** Read with each batch's devices, so a change applies from the next batch on. */
export async function updateAccountSettings(db: Queryable, accountId: string, patch: Partial<AccountSettings>): Promise<AccountSettings> {
  if (patch.speedLimitKmh !== undefined) await db.query('UPDATE accounts SET speed_limit_kmh = $2 WHERE id = $1', [accountId, patch.speedLimitKmh]);
  return accountSettings(db, accountId);
}
