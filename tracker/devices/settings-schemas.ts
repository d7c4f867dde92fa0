// Unit and account settings (speed limits, fuel tank and thresholds, maintenance schedule) as the
// public API and the dashboard's unit page take and show them; devices/settings.ts reads them for
// the event rules.
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

export const DeviceSettings = z.object({ ...settingsFields, maintenance: Maintenance }).meta({ id: 'DeviceSettings' });

export const DeviceSettingsPatch = z
  .strictObject({
    speedLimitKmh: settingsFields.speedLimitKmh.optional(),
    fuelTankLitres: settingsFields.fuelTankLitres.optional(),
    fuelLowLitres: settingsFields.fuelLowLitres.optional(),
    fuelLowPercent: settingsFields.fuelLowPercent.optional(),
    maintenance: Maintenance.partial().optional(),
  })
  .meta({ id: 'DeviceSettingsPatch', description: 'Fields left out are unchanged; null clears a setting' });

export const AccountSettings = z.object({ speedLimitKmh: kmh.nullable().meta({ description: 'Speed limit of units without their own (km/h); null: 90' }) }).meta({ id: 'AccountSettings' });
export const AccountSettingsPatch = z.strictObject({ speedLimitKmh: kmh.nullable().optional() }).meta({ id: 'AccountSettingsPatch' });
