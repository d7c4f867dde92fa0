// Unit and account settings (speed limits, fuel tank and thresholds, maintenance schedule, trip
// detection) as the public API and the dashboard's unit page take and show them; devices/settings.ts
// reads them for the event rules and the reports.
import { z } from 'zod';

const kmh = z.number().gt(0, 'must be greater than 0').max(400, 'must be at most 400');
const litres = (min: 'positive' | 'zero') => (min === 'positive' ? z.number().gt(0, 'must be greater than 0') : z.number().min(0, 'must be at least 0')).max(10_000, 'must be at most 10000');
const reading = (unit: string) => z.number().min(0, 'must be at least 0').max(1e7, 'must be at most 10000000').default(0).meta({ description: `Reading at the last service, ${unit} (default 0)` });
const interval = (unit: string) => z.number().gt(0, 'must be greater than 0').max(1e6, 'must be at most 1000000').meta({ description: `Service interval, ${unit}` });

const settingsFields = {
  speedLimitKmh: kmh.nullable().meta({ description: 'Speeding above this (km/h); null: the account default, else 90' }),
  fuelTankLitres: litres('positive').nullable().meta({ description: 'Tank capacity, litres: turns fuel percent readings into litres' }),
  fuelLowLitres: litres('zero').nullable().meta({ description: 'fuel_alert below this many litres' }),
  fuelLowPercent: z.number().min(0, 'must be at least 0').max(100, 'must be at most 100').nullable().meta({ description: 'fuel_alert below this percentage of the tank' }),
};

export const Maintenance = z
  .strictObject({
    odometer: z.strictObject({ startKm: reading('km'), everyKm: interval('km') }).nullable().meta({ description: 'maintenance_due each time the odometer passes startKm + n × everyKm' }),
    engineHours: z.strictObject({ start: reading('hours'), every: interval('hours') }).nullable().meta({ description: 'maintenance_due each time the engine hours pass start + n × every' }),
  })
  .meta({ id: 'Maintenance' });

const tripLimit = (what: string, unit: string, max: number) =>
  z.number().min(0, 'must be at least 0').max(max, `must be at most ${max}`).nullable().meta({ description: `${what}, ${unit}; null: the account's value, else the default` });

export const TripSettings = z
  .strictObject({
    minTripDistanceM: tripLimit('A movement shorter than this and than minTripDurationS is not a trip (default 500)', 'metres', 1_000_000),
    minTripDurationS: tripLimit('A movement shorter than this and than minTripDistanceM is not a trip (default 300)', 'seconds', 86_400),
    minStopDurationS: tripLimit('A stop shorter than this does not split a trip (default 300)', 'seconds', 86_400),
    maxGapS: tripLimit('A silence longer than this next to a trip ends the trip at its last record (default 3600)', 'seconds', 7 * 86_400),
  })
  .meta({ id: 'TripSettings', description: 'How the trips and stops reports tell trips from stops (docs/reports.md)' });

export const DeviceSettings = z.object({ ...settingsFields, maintenance: Maintenance, trips: TripSettings }).meta({ id: 'DeviceSettings' });

export const DeviceSettingsPatch = z
  .strictObject({
    speedLimitKmh: settingsFields.speedLimitKmh.optional(),
    fuelTankLitres: settingsFields.fuelTankLitres.optional(),
    fuelLowLitres: settingsFields.fuelLowLitres.optional(),
    fuelLowPercent: settingsFields.fuelLowPercent.optional(),
    maintenance: Maintenance.partial().optional(),
    trips: TripSettings.partial().optional(),
  })
  .meta({ id: 'DeviceSettingsPatch', description: 'Fields left out are unchanged; null clears a setting' });

export const AccountSettings = z
  .object({ speedLimitKmh: kmh.nullable().meta({ description: 'Speed limit of units without their own (km/h); null: 90' }), trips: TripSettings })
  .meta({ id: 'AccountSettings' });
export const AccountSettingsPatch = z
  .strictObject({ speedLimitKmh: kmh.nullable().optional(), trips: TripSettings.partial().optional() })
  .meta({ id: 'AccountSettingsPatch', description: 'Fields left out are unchanged; null clears a setting' });
