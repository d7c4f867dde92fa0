// OsmAnd reports the way the OsmAnd app (query string) and Traccar Client (JSON body) send them.
import type { DeviceFix, DeviceState } from './fix.js';
import { KMH_PER_KNOT } from './fix.js';

/** Query parameters for GET/POST /?id=…&lat=…; speed in knots as the OsmAnd app sends it. */
export function osmandQuery(id: string, fix: DeviceFix, state: DeviceState = {}): Record<string, string> {
  const q: Record<string, string> = {
    id,
    timestamp: String(Math.floor(fix.time.getTime() / 1000)),
    lat: fix.lat.toFixed(6),
    lon: fix.lng.toFixed(6),
    speed: (fix.speed / KMH_PER_KNOT).toFixed(2),
    bearing: fix.heading.toFixed(1),
  };
  if (fix.altitude !== undefined) q.altitude = String(fix.altitude);
  if (state.batteryLevel !== undefined) q.batt = String(Math.round(state.batteryLevel));
  if (state.ignition !== undefined) q.ignition = String(state.ignition);
  if (state.fuelLevel !== undefined) q.fuelLevel = String(state.fuelLevel);
  if (state.alarm) q.alarm = state.alarm;
  if (fix.valid === false) q.valid = 'false';
  return q;
}

export function osmandQueryString(id: string, fix: DeviceFix, state: DeviceState = {}): string {
  return new URLSearchParams(osmandQuery(id, fix, state)).toString();
}

/** Traccar Client JSON body; speed in m/s, battery level 0..1. */
export function osmandJson(id: string, fix: DeviceFix, state: DeviceState = {}): Record<string, unknown> {
  const extras: Record<string, unknown> = {};
  if (state.ignition !== undefined) extras.ignition = state.ignition;
  if (state.alarm) extras.alarm = state.alarm;
  return {
    device_id: id,
    location: {
      timestamp: fix.time.toISOString(),
      coords: {
        latitude: fix.lat,
        longitude: fix.lng,
        speed: fix.speed / 3.6,
        heading: fix.heading,
        altitude: fix.altitude ?? 0,
        accuracy: 5,
      },
      is_moving: fix.speed > 0,
      battery: { level: (state.batteryLevel ?? 100) / 100, is_charging: false },
      extras,
    },
  };
}
