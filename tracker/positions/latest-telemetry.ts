// Each device's latest telemetry: per key the newest value and the device time it was reported at
// (a battery level reported an hour ago and an ignition reported now each keep their own age), and
// the last few alarms. Merged into the device's state (positions/device-state.ts) from the positions
// a batch stored (flagged ones excluded) and from the reports without a fix, and written in the
// batch's transaction, so what a device was ACKed for is there after a crash. A key keeps its value
// when the one reported is older (a late record changes nothing newer).
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

/** What a merge works on: a device's state (positions/device-state.ts). */
interface Merging {
  latest: LatestTelemetry;
  changed: { latest: boolean };
}

/** True when `into` changed. The time's text is made only when a kept key is there. */
function merge(into: LatestTelemetry, attributes: Telemetry, at: Date): boolean {
  let changed = false;
  let time: string | undefined;
  for (const key of LATEST_KEYS) {
    const value = attributes[key];
    if (value === undefined) continue;
    time ??= at.toISOString();
    const held = into.telemetry[key];
    if (held && held.time > time) continue;
    (into.telemetry as Record<string, Reported>)[key] = { value, time };
    changed = true;
  }
  const alarm = attributes.alarm;
  if (alarm !== undefined && !into.alarms.some((a) => a.time === time && a.value === alarm)) {
    into.alarms = [...into.alarms, { value: alarm, time: time! }].sort((x, y) => (x.time < y.time ? 1 : x.time > y.time ? -1 : 0)).slice(0, ALARMS_KEPT);
    changed = true;
  }
  return changed;
}

/**
 * Merges what the batch's positions (stored, not flagged) and reports say into their devices'
 * states. A report without a fix carries no device time: the time it was received stands in.
 */
export function mergeLatest(states: Map<string, Merging>, positions: readonly DevicePosition[], reports: readonly DeviceReport[]): void {
  for (const r of positions) mergeInto(states.get(r.deviceId), r.position.attributes, r.position.deviceTime);
  for (const r of reports) mergeInto(states.get(r.deviceId), r.attributes, r.receivedAt);
}

function mergeInto(state: Merging | undefined, attributes: Telemetry, time: Date): void {
  if (state && merge(state.latest, attributes, time)) state.changed.latest = true;
}

/** A device's latest telemetry; empty for one that never reported any. */
export async function latestTelemetry(db: Queryable, deviceId: string): Promise<LatestTelemetry> {
  const [row] = await db.query<{ telemetry: string; alarms: LatestTelemetry['alarms'] }>('SELECT telemetry, alarms FROM devices WHERE id = $1', [deviceId]);
  return row ? { telemetry: JSON.parse(row.telemetry) as LatestTelemetry['telemetry'], alarms: row.alarms } : { telemetry: {}, alarms: [] };
}

/** The latest telemetry of each of the account's devices, by device id. */
export async function accountTelemetry(db: Queryable, accountId: string): Promise<Map<string, LatestTelemetry['telemetry']>> {
  const rows = await db.query<{ id: string; telemetry: string }>('SELECT id, telemetry FROM devices WHERE account_id = $1', [accountId]);
  return new Map(rows.map((r) => [r.id, JSON.parse(r.telemetry) as LatestTelemetry['telemetry']]));
}
