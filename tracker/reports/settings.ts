// How trips are told from stops: the defaults Traccar users know (report.trip.* in Traccar's
// configuration), overridden per account and per unit.
import { accountSettings, TRIP_KEYS, type TripKey, type TripOverrides } from '../devices/settings.js';
import type { Queryable } from '../storage/db.js';
export interface TripSettings extends Record<TripKey, number> {
  /** A movement shorter than this (m) and than minTripDurationS is not a trip. */
  minTripDistanceM: number;
  minTripDurationS: number;
  /** A stop shorter than this (s) does not split a trip. */
  minStopDurationS: number;
  /** A silence longer than this (s) next to a trip ends the trip at its last record. */
  maxGapS: number;
}

export const TRIP_DEFAULTS: TripSettings = { minTripDistanceM: 500, minTripDurationS: 300, minStopDurationS: 300, maxGapS: 3600 };

/** Each unit's settings: its own where set, else its account's, else the defaults. */
export async function tripSettings(db: Queryable, accountId: string, deviceIds: string[]): Promise<Map<string, TripSettings>> {
  const account = (await accountSettings(db, accountId)).trips;
  const own = await db.query<{ device_id: string; trip_settings: Partial<TripOverrides> }>(
    "SELECT device_id, trip_settings FROM device_settings WHERE device_id = ANY($1::text[]) AND trip_settings <> '{}'",
    [deviceIds],
  );
  const base = resolve(TRIP_DEFAULTS, account);
  const out = new Map(deviceIds.map((id) => [id, base]));
  for (const r of own) out.set(r.device_id, resolve(base, r.trip_settings));
  return out;
}

function resolve(base: TripSettings, overrides: Partial<TripOverrides>): TripSettings {
  const out = { ...base };
  for (const key of TRIP_KEYS) out[key] = overrides[key] ?? base[key];
  return out;
}
