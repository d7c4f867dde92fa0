// Each device's latest telemetry: per key the newest value and the device time it was reported at
// (a battery level reported an hour ago and an ignition reported now each keep their own age), and
// the last few alarms. Written in the batch's transaction from the positions it stored (flagged ones
// excluded) and from the reports without a fix, so what a device was ACKed for is there after a
// crash. One statement per batch: the batch is merged per device here, the database keeps a key's
// value only when it is not older than the one it has (a late record changes nothing newer).
import type { DeviceReport } from '../events/engine.js';
import type { Queryable } from '../storage/db.js';
import type { DevicePosition } from './repository.js';
import { TELEMETRY, type Telemetry } from './telemetry.js';

/** The keys kept: what a fleet manager reads off a vehicle at a glance (the devices list shows them all). */
export const LATEST_KEYS = ['ignition', 'motion', 'fuel', 'fuelLevel', 'battery', 'batteryLevel', 'power', 'odometer', 'engineHours', 'alarm'] as const satisfies readonly (keyof typeof TELEMETRY)[];
export type LatestKey = (typeof LATEST_KEYS)[number];

/** How many alarms a device's page lists. */
const ALARMS_KEPT = 5;

/** A value with the time it was reported at (ISO 8601 UTC): the API's shape, stored as it is shown. */
export interface Reported<T = Telemetry[LatestKey]> {
  value: T;
  time: string;
}

export interface LatestTelemetry {
  telemetry: { [K in LatestKey]?: Reported<NonNullable<Telemetry[K]>> };
  /** Newest first. */
  alarms: Reported<string>[];
}

/** True when a report without a fix says something kept here (it is then stored before its ACK). */
export function carriesLatest(attributes: Telemetry): boolean {
  return LATEST_KEYS.some((k) => attributes[k] !== undefined);
}

function merge(into: LatestTelemetry, attributes: Telemetry, time: string): void {
  for (const key of LATEST_KEYS) {
    const value = attributes[key];
    if (value === undefined) continue;
    const held = into.telemetry[key];
    if (!held || held.time <= time) (into.telemetry as Record<string, Reported>)[key] = { value, time };
  }
  if (attributes.alarm !== undefined && !into.alarms.some((a) => a.time === time && a.value === attributes.alarm)) into.alarms.push({ value: attributes.alarm, time });
}

/**
 * Stores what the batch's positions (already stored, not flagged) and reports say. A report without
 * a fix carries no device time: the time it was received stands in.
 */
export async function storeLatestTelemetry(tx: Queryable, positions: readonly DevicePosition[], reports: readonly DeviceReport[]): Promise<void> {
  const byDevice = new Map<string, LatestTelemetry>();
  const of = (deviceId: string) => {
    let latest = byDevice.get(deviceId);
    if (!latest) byDevice.set(deviceId, (latest = { telemetry: {}, alarms: [] }));
    return latest;
  };
  for (const r of positions) if (carriesLatest(r.position.attributes)) merge(of(r.deviceId), r.position.attributes, r.position.deviceTime.toISOString());
  for (const r of reports) if (carriesLatest(r.attributes)) merge(of(r.deviceId), r.attributes, r.receivedAt.toISOString());
  if (byDevice.size === 0) return;
  // In id order, so two processes writing the same devices take their row locks in the same order.
  const ids = [...byDevice.keys()].sort();
  const rows = ids.map((id) => byDevice.get(id)!);
  await tx.query(
    `INSERT INTO device_telemetry AS d (device_id, telemetry, alarms)
     SELECT * FROM unnest($1::text[], $2::jsonb[], $3::jsonb[])
     ON CONFLICT (device_id) DO UPDATE SET
       telemetry = d.telemetry || (
         SELECT coalesce(jsonb_object_agg(n.key, n.value), '{}') FROM jsonb_each(excluded.telemetry) n
         WHERE NOT d.telemetry ? n.key OR (d.telemetry -> n.key ->> 'time')::timestamptz <= (n.value ->> 'time')::timestamptz),
       alarms = CASE WHEN excluded.alarms = '[]' THEN d.alarms ELSE (
         SELECT jsonb_agg(a ORDER BY (a ->> 'time')::timestamptz DESC) FROM (
           SELECT a FROM (SELECT DISTINCT a FROM jsonb_array_elements(d.alarms || excluded.alarms) a) u
           ORDER BY (a ->> 'time')::timestamptz DESC LIMIT ${ALARMS_KEPT}) kept) END`,
    [ids, rows.map((r) => JSON.stringify(r.telemetry)), rows.map((r) => JSON.stringify(newestAlarms(r.alarms)))],
  );
}

function newestAlarms(alarms: Reported<string>[]): Reported<string>[] {
  return alarms.sort((a, b) => (a.time < b.time ? 1 : a.time > b.time ? -1 : 0)).slice(0, ALARMS_KEPT);
}

/** A device's latest telemetry; empty for one that never reported any. */
export async function latestTelemetry(db: Queryable, deviceId: string): Promise<LatestTelemetry> {
  const [row] = await db.query<LatestTelemetry>('SELECT telemetry, alarms FROM device_telemetry WHERE device_id = $1', [deviceId]);
  return row ?? { telemetry: {}, alarms: [] };
}
