// What the event rules need to know about a unit (its speed limit, fuel tank and thresholds,
// maintenance schedule) and the account's default speed limit; and how the reports tell the unit's
// trips from its stops, per unit and per account (null: the account's value, then the default).
import type { Db, Queryable } from '../storage/db.js';

export interface Maintenance {
  odometer: { startKm: number; everyKm: number } | null;
  engineHours: { start: number; every: number } | null;
}

export const TRIP_KEYS = ['minTripDistanceM', 'minTripDurationS', 'minStopDurationS', 'maxGapS'] as const;
export type TripKey = (typeof TRIP_KEYS)[number];
export type TripOverrides = Record<TripKey, number | null>;
const NO_TRIP_OVERRIDES: TripOverrides = { minTripDistanceM: null, minTripDurationS: null, minStopDurationS: null, maxGapS: null };

export interface DeviceSettings {
  speedLimitKmh: number | null;
  fuelTankLitres: number | null;
  fuelLowLitres: number | null;
  fuelLowPercent: number | null;
  maintenance: Maintenance;
  trips: TripOverrides;
}

/** Absent fields are left as they are; null clears a setting. */
export type DeviceSettingsPatch = Partial<Omit<DeviceSettings, 'maintenance' | 'trips'>> & {
  maintenance?: Partial<Maintenance> | undefined;
  trips?: Partial<TripOverrides> | undefined;
};

interface Row {
  speed_limit_kmh: number | null;
  fuel_tank_litres: number | null;
  fuel_low_litres: number | null;
  fuel_low_percent: number | null;
  maintenance: Partial<Maintenance>;
  trip_settings: Partial<TripOverrides>;
}

const NONE: DeviceSettings = { speedLimitKmh: null, fuelTankLitres: null, fuelLowLitres: null, fuelLowPercent: null, maintenance: { odometer: null, engineHours: null }, trips: NO_TRIP_OVERRIDES };

const defined = <T extends object>(o: T) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
/** The values set, for storage: a cleared one is left out. */
const setOnly = (o: object) => JSON.stringify(Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null)));

export async function deviceSettings(db: Queryable, deviceId: string): Promise<DeviceSettings> {
  const [r] = await db.query<Row>('SELECT speed_limit_kmh, fuel_tank_litres, fuel_low_litres, fuel_low_percent, maintenance, trip_settings FROM device_settings WHERE device_id = $1', [deviceId]);
  if (!r) return NONE;
  return {
    speedLimitKmh: r.speed_limit_kmh,
    fuelTankLitres: r.fuel_tank_litres,
    fuelLowLitres: r.fuel_low_litres,
    fuelLowPercent: r.fuel_low_percent,
    maintenance: { odometer: r.maintenance.odometer ?? null, engineHours: r.maintenance.engineHours ?? null },
    trips: { ...NO_TRIP_OVERRIDES, ...r.trip_settings },
  };
}

export async function updateDeviceSettings(db: Db, deviceId: string, patch: DeviceSettingsPatch): Promise<DeviceSettings> {
  return db.transaction((tx) => writeDeviceSettings(tx, deviceId, patch));
}

/** updateDeviceSettings within the caller's transaction (the unit's row is locked until it ends). */
export async function writeDeviceSettings(tx: Queryable, deviceId: string, patch: DeviceSettingsPatch): Promise<DeviceSettings> {
  await tx.query('INSERT INTO device_settings (device_id) VALUES ($1) ON CONFLICT DO NOTHING', [deviceId]);
  await tx.query('SELECT device_id FROM device_settings WHERE device_id = $1 FOR UPDATE', [deviceId]);
  const current = await deviceSettings(tx, deviceId);
  const next: DeviceSettings = {
    ...current,
    ...defined(patch),
    maintenance: { ...current.maintenance, ...defined(patch.maintenance ?? {}) },
    trips: { ...current.trips, ...defined(patch.trips ?? {}) },
  };
  await tx.query(
    `UPDATE device_settings SET speed_limit_kmh = $2, fuel_tank_litres = $3, fuel_low_litres = $4, fuel_low_percent = $5, maintenance = $6, trip_settings = $7, updated_at = now()
     WHERE device_id = $1`,
    [deviceId, next.speedLimitKmh, next.fuelTankLitres, next.fuelLowLitres, next.fuelLowPercent, setOnly(next.maintenance), setOnly(next.trips)],
  );
  return next;
}

export interface AccountSettings {
  /** Speed limit of units without their own; null means the built-in 90 km/h. */
  speedLimitKmh: number | null;
  /** Trip detection of units without their own; null means the default. */
  trips: TripOverrides;
}

export type AccountSettingsPatch = { speedLimitKmh?: number | null | undefined; trips?: Partial<TripOverrides> | undefined };

export async function accountSettings(db: Queryable, accountId: string): Promise<AccountSettings> {
  const [r] = await db.query<{ speed_limit_kmh: number | null; trip_settings: Partial<TripOverrides> }>('SELECT speed_limit_kmh, trip_settings FROM accounts WHERE id = $1', [accountId]);
  return { speedLimitKmh: r?.speed_limit_kmh ?? null, trips: { ...NO_TRIP_OVERRIDES, ...r?.trip_settings } };
}

/** Read with each batch's devices, so a change applies from the next batch on. */
export async function updateAccountSettings(db: Db, accountId: string, patch: AccountSettingsPatch): Promise<AccountSettings> {
  return db.transaction(async (tx) => {
    if (patch.speedLimitKmh !== undefined) await tx.query('UPDATE accounts SET speed_limit_kmh = $2 WHERE id = $1', [accountId, patch.speedLimitKmh]);
    if (patch.trips !== undefined) {
      const [r] = await tx.query<{ trip_settings: Partial<TripOverrides> }>('SELECT trip_settings FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
      await tx.query('UPDATE accounts SET trip_settings = $2 WHERE id = $1', [accountId, setOnly({ ...NO_TRIP_OVERRIDES, ...r?.trip_settings, ...defined(patch.trips) })]);
    }
    return accountSettings(tx, accountId);
  });
}
