// The events engine: judges what a transaction stored (positions, alarm-only reports, a device's
// online/offline change) in that same transaction, writes the events, their alerts and the rules'
// state, then hands the events to the listeners (outbound webhooks enqueue there). A listener that
// throws rolls the whole transaction back, positions included, so nothing is half-done.
//
// Per batch it costs one query for the devices' settings and state, the account inputs from the
// cache (reloaded only when their version moved), and only when something happened a query for the
// names and last positions of the devices with events and one write per table: a device whose
// rules' state did not change (the usual case) writes nothing. The fuel rule's window of readings
// is not part of that state: it stays in memory with the device's running state, and is read back
// from the positions for a unit whose running state was read rather than kept (fuel-windows.ts).
import type { DevicePosition } from '../positions/repository.js';
import type { Telemetry } from '../positions/telemetry.js';
import type { Queryable } from '../storage/db.js';
import { AccountInputsCache, type AccountInputs } from './account-inputs.js';
import { alertMessage, severityOf } from './alerting.js';
import { evaluateDevice, type DeviceInputs, type DeviceRuleState, type Raised } from './evaluate.js';
import type { Reading } from './evaluators/fuel.js';
import { DEFAULT_SPEED_LIMIT_KMH } from './evaluators/speeding.js';
import type { Observation } from './evaluators/types.js';
import { readFuelWindows, type WindowWanted } from './fuel-windows.js';
import { insertEvents, type NewEvent } from './repository.js';
import type { EventListener, EventPosition, RaisedEvent } from './types.js';

/** What a message without a fix said (an alarm, a battery level, the ignition…), as the ingest path hands it in. */
export interface DeviceReport {
  deviceId: string;
  receivedAt: Date;
  attributes: Telemetry;
}

interface MaintenanceJson {
  odometer?: { startKm: number; everyKm: number };
  engineHours?: { start: number; every: number };
}

interface DeviceRow {
  id: string;
  account_id: string;
  rules_version: number;
  account_speed_limit: number | null;
  speed_limit_kmh: number | null;
  fuel_tank_litres: number | null;
  fuel_low_litres: number | null;
  fuel_low_percent: number | null;
  maintenance: MaintenanceJson | null;
  /** JSON text (migration 022). */
  state: string | null;
}

/** What every batch loads for its devices: only what the rules need. */
const DEVICE_ROWS = `
  SELECT d.id, d.account_id, a.rules_version, a.speed_limit_kmh AS account_speed_limit,
         s.speed_limit_kmh, s.fuel_tank_litres, s.fuel_low_litres, s.fuel_low_percent, s.maintenance, r.state
  FROM devices d JOIN accounts a ON a.id = d.account_id
  LEFT JOIN device_settings s ON s.device_id = d.id
  LEFT JOIN device_rule_state r ON r.device_id = d.id
  WHERE d.id = ANY($1)`;

/** What an event needs of its device (its name for the alert, its last known position): loaded only for devices with events. */
interface DeviceFacts {
  id: string;
  account_id: string;
  name: string;
  last_lat: number | null;
  last_lng: number | null;
  last_speed: number;
  last_heading: number | null;
  last_update: Date | null;
}

const DEVICE_FACTS = 'SELECT id, account_id, name, last_lat, last_lng, last_speed, last_heading, last_update FROM devices WHERE id = ANY($1)';

/**
 * For online/offline, which no report raised: the facts and the telemetry of the unit's latest
 * stored report (one read down the positions key); a report a filter found in the future is not
 * the latest.
 */
const STATUS_FACTS = `SELECT d.id, d.account_id, d.name, d.last_lat, d.last_lng, d.last_speed, d.last_heading, d.last_update,
  coalesce((SELECT p.attributes FROM positions p WHERE p.device_id = d.id AND p.filtered IS DISTINCT FROM 'future' ORDER BY p.device_time DESC LIMIT 1), '{}') AS attributes
  FROM devices d WHERE d.id = $1`;

/** The unit's last known valid position: where an event without a valid fix of its own is shown. */
function lastKnown(d: DeviceFacts): EventPosition | null {
  if (d.last_lat === null || d.last_lng === null || !d.last_update) return null;
  return { lat: d.last_lat, lng: d.last_lng, speed: d.last_speed, heading: d.last_heading ?? 0, timestamp: d.last_update.toISOString(), valid: true, lastKnown: true };
}

function inputsFor(d: DeviceRow, account: AccountInputs): DeviceInputs {
  const m = d.maintenance ?? {};
  return {
    speedLimitKmh: d.speed_limit_kmh ?? d.account_speed_limit ?? DEFAULT_SPEED_LIMIT_KMH,
    fuel: { tankLitres: d.fuel_tank_litres, lowLitres: d.fuel_low_litres, lowPercent: d.fuel_low_percent },
    maintenance: {
      odometer: m.odometer ? { start: m.odometer.startKm, every: m.odometer.everyKm } : null,
      engineHours: m.engineHours ? { start: m.engineHours.start, every: m.engineHours.every } : null,
    },
    geofences: account.geofences,
    rules: account.rules.filter((r) => !r.deviceIds || r.deviceIds.has(d.id)),
  };
}

function observationOf(p: DevicePosition, receivedAt: number): Observation {
  const x = p.position;
  const fix: NonNullable<Observation['fix']> = { lat: x.lat, lng: x.lng, speed: x.speed, heading: x.heading, valid: x.valid };
  if (x.altitude !== undefined) fix.altitude = x.altitude;
  if (x.satellites !== undefined) fix.satellites = x.satellites;
  return { time: x.deviceTime.getTime(), receivedAt, fix, attributes: x.attributes };
}

export class EventEngine {
  constructor(
    /** Called in order; the array may gain listeners after the engine is made. */
    private readonly listeners: readonly EventListener[],
    private readonly inputs = new AccountInputsCache(),
  ) {}

  /**
   * Judges newly stored positions (not ones already stored before) and the reports without a fix
   * that carry an alarm; the others only update the device's latest telemetry. `states` are the
   * batch's devices' running states: the fuel windows are taken from and left there.
   */
  async judge(tx: Queryable, positions: readonly DevicePosition[], reports: readonly DeviceReport[], states: ReadonlyMap<string, { fuelReadings?: readonly Reading[] }>, now = Date.now()): Promise<RaisedEvent[]> {
    const observations = new Map<string, Observation[]>();
    const observe = (deviceId: string, o: Observation) => {
      const list = observations.get(deviceId);
      if (list) list.push(o);
      else observations.set(deviceId, [o]);
    };
    for (const p of positions) observe(p.deviceId, observationOf(p, now));
    for (const r of reports) if (r.attributes.alarm !== undefined) observe(r.deviceId, { time: r.receivedAt.getTime(), receivedAt: r.receivedAt.getTime(), fix: null, attributes: r.attributes });
    if (observations.size === 0) return [];

    const devices = await tx.query<DeviceRow>(DEVICE_ROWS, [[...observations.keys()]]);
    const accounts = await this.inputs.get(tx, new Map(devices.map((d) => [d.account_id, d.rules_version])));
    const unknown: WindowWanted[] = [];
    for (const d of devices) {
      if (states.get(d.id)?.fuelReadings !== undefined) continue;
      // The earliest fix with a fuel reading, in one pass: most units report none.
      let before = Infinity;
      for (const o of observations.get(d.id)!) if (o.fix !== null && o.time < before && (o.attributes.fuel !== undefined || o.attributes.fuelLevel !== undefined)) before = o.time;
      if (before !== Infinity) unknown.push({ id: d.id, before, tankLitres: d.fuel_tank_litres });
    }
    const windows = await readFuelWindows(tx, unknown);
    const changed: { id: string; state: DeviceRuleState }[] = [];
    const raised: { deviceId: string; raised: Raised }[] = [];
    for (const d of devices) {
      const state: DeviceRuleState = d.state === null ? {} : JSON.parse(d.state);
      const running = states.get(d.id);
      const window = running?.fuelReadings ?? windows.get(d.id);
      const result = evaluateDevice(state, observations.get(d.id)!, inputsFor(d, accounts.get(d.account_id)!), window);
      // Kept only where it is known: a unit whose window is unknown and got no reading stays unknown.
      if (running && window !== undefined) running.fuelReadings = result.fuelReadings;
      if (result.changed) changed.push({ id: d.id, state: result.state });
      for (const r of result.raised) raised.push({ deviceId: d.id, raised: r });
    }
    const events: NewEvent[] = [];
    if (raised.length > 0) {
      const facts = new Map((await tx.query<DeviceFacts>(DEVICE_FACTS, [[...new Set(raised.map((r) => r.deviceId))]])).map((d) => [d.id, d]));
      for (const { deviceId, raised: r } of raised) {
        const d = facts.get(deviceId)!;
        const fix = r.observation.fix;
        const position = fix?.valid ? { lat: fix.lat, lng: fix.lng, speed: fix.speed, heading: fix.heading, timestamp: new Date(r.observation.time).toISOString(), valid: true, lastKnown: false } : lastKnown(d);
        events.push(this.event(d, r.type, position, r.observation.attributes, r.data, severityOf(r)));
      }
    }
    if (changed.length > 0) {
      // In id order, so two processes briefly writing one device's state cannot deadlock.
      changed.sort((a, b) => (a.id < b.id ? -1 : 1));
      // One JSON document, not an array of them: the client quotes every element of an array
      // parameter character by character.
      await tx.query(
        `INSERT INTO device_rule_state (device_id, state) SELECT i, s FROM json_to_recordset($1::json) AS r(i text, s text)
         ON CONFLICT (device_id) DO UPDATE SET state = excluded.state, updated_at = now()`,
        [JSON.stringify(changed.map((s) => ({ i: s.id, s: s.state })))],
      );
    }
    return this.store(tx, events);
  }

  /** A device came online or went offline (called in the transaction that records it). */
  async statusChanged(tx: Queryable, deviceId: string, status: 'online' | 'offline'): Promise<RaisedEvent[]> {
    const [d] = await tx.query<DeviceFacts & { attributes: Telemetry }>(STATUS_FACTS, [deviceId]);
    if (!d) return [];
    const type = status === 'online' ? 'device_online' : 'device_offline';
    return this.store(tx, [this.event(d, type, lastKnown(d), d.attributes, {}, severityOf({ type }))]);
  }

  private event(d: DeviceFacts, type: NewEvent['type'], position: EventPosition | null, attributes: Telemetry, data: Record<string, unknown>, severity: ReturnType<typeof severityOf>): NewEvent {
    return { accountId: d.account_id, deviceId: d.id, type, position, attributes, data, alert: severity ? { severity, message: alertMessage(type, d.name, data) } : null };
  }

  private async store(tx: Queryable, events: NewEvent[]): Promise<RaisedEvent[]> {
    const stored = await insertEvents(tx, events);
    if (stored.length > 0) for (const listener of this.listeners) await listener(tx, stored);
    return stored;
  }
}
