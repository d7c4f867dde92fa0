// A device's running state, kept in its devices row: its current position, the counters and its
// latest telemetry. A batch's transaction locks the rows of its devices once, in id order (two
// trackers writing for one device take turns, and a stretch is never counted twice or lost), works
// the new state out here, and writes each changed row once. What a tracker committed is kept
// (KeptStates) with the row version it left: a row still at that version is not read again, only
// locked; a row anything else changed since (another tracker, an edit) is read.
import type { Reading } from '../events/evaluators/fuel.js';
import type { Queryable } from '../storage/db.js';
import type { Counters } from './counters.js';
import type { LatestTelemetry, Reported } from './latest-telemetry.js';

export interface CurrentPosition {
  lat: number;
  lng: number;
  speed: number;
  heading: number;
  time: Date;
}

export interface DeviceState {
  id: string;
  /** The newest valid fix no filter flagged; null before the first. */
  current: CurrentPosition | null;
  counters: Counters;
  latest: LatestTelemetry;
  /** What the batch changed, and so writes back. */
  changed: { current: boolean; counters: boolean; latest: boolean };
  /** The row's version (its xmin) as read, or once written the writing transaction's id. */
  version: string;
  /**
   * The fuel rule's window as this tracker last judged it (events/evaluators/fuel.ts): kept with
   * the state, so it holds while the row does; undefined when the row was read or before any reading.
   */
  fuelReadings?: readonly Reading[];
}

/**
 * A device's committed state as kept between its batches, changed in place: each report would
 * otherwise leave a new state behind that lives until the device's next report, long enough to be
 * copied by the young generation's collections and then moved to the old one, where it dies (at
 * 5,000 reports/s, the kept states were most of what outlived a collection). Numbers stay numbers
 * (NaN stands for none), so writing them allocates nothing.
 */
class Kept {
  lat = NaN;
  lng = NaN;
  speed = NaN;
  heading = NaN;
  /** Epoch ms of the current position; NaN: none yet. */
  time = NaN;
  counterTime = NaN;
  odometer = NaN;
  engineHours = NaN;
  ignition: boolean | null = null;
  /** Each key's entry, updated in place. */
  readonly telemetry: Record<string, Reported> = {};
  alarms: LatestTelemetry['alarms'] = [];
  fuelReadings: readonly Reading[] | undefined = undefined;
  version = '';

  /** Takes on a committed state. */
  set(s: DeviceState): void {
    this.version = s.version;
    const c = s.current;
    this.time = c ? c.time.getTime() : NaN;
    this.lat = c ? c.lat : NaN;
    this.lng = c ? c.lng : NaN;
    this.speed = c ? c.speed : NaN;
    this.heading = c ? c.heading : NaN;
    this.counterTime = s.counters.time ? s.counters.time.getTime() : NaN;
    this.odometer = s.counters.odometer ?? NaN;
    this.engineHours = s.counters.engineHours ?? NaN;
    this.ignition = s.counters.ignition;
    const given = s.latest.telemetry as Record<string, Reported>;
    for (const key in this.telemetry) if (!(key in given)) delete this.telemetry[key];
    for (const key in given) {
      const entry = this.telemetry[key];
      const now = given[key]!;
      if (entry === undefined) this.telemetry[key] = now;
      else if (entry !== now) {
        entry.value = now.value;
        entry.time = now.time;
      }
    }
    this.alarms = s.latest.alarms;
    this.fuelReadings = s.fuelReadings;
  }

  /** A working copy: the batch may fail, and what is kept must stay as committed. */
  state(id: string): DeviceState {
    return {
      id,
      current: Number.isNaN(this.time) ? null : { lat: this.lat, lng: this.lng, speed: this.speed, heading: this.heading, time: new Date(this.time) },
      counters: {
        time: Number.isNaN(this.counterTime) ? null : new Date(this.counterTime),
        odometer: Number.isNaN(this.odometer) ? null : this.odometer,
        engineHours: Number.isNaN(this.engineHours) ? null : this.engineHours,
        ignition: this.ignition,
      },
      // The entries are shared: a merge replaces an entry, never changes one.
      latest: { telemetry: { ...this.telemetry }, alarms: this.alarms },
      changed: { current: false, counters: false, latest: false },
      version: this.version,
      fuelReadings: this.fuelReadings,
    };
  }
}

/**
 * The states this tracker committed last, by device, each with the version of the row it wrote or
 * read. A version names one transaction, and only a batch's own write changes these columns, so a
 * row still at the kept version holds the kept state. Past `max` devices, those kept first are let go.
 */
export class KeptStates {
  private readonly kept = new Map<string, Kept>();

  constructor(private readonly max = 100_000) {}

  /** A copy to work on, or undefined when the row is not at the kept version. */
  take(id: string, version: string): DeviceState | undefined {
    const k = this.kept.get(id);
    return k && k.version === version ? k.state(id) : undefined;
  }

  /** After COMMIT: the batch's states are what the rows now hold. */
  keep(states: Iterable<DeviceState>): void {
    for (const s of states) {
      let k = this.kept.get(s.id);
      if (!k) this.kept.set(s.id, (k = new Kept()));
      k.set(s);
    }
    for (const id of this.kept.keys()) {
      if (this.kept.size <= this.max) break;
      this.kept.delete(id);
    }
  }
}

interface Row {
  id: string;
  version: string;
  last_lat: number | null;
  last_lng: number | null;
  last_speed: number;
  last_heading: number | null;
  /** Epoch milliseconds: numbers parse far faster than timestamps. */
  last_update: number | null;
  counter_time: number | null;
  counter_odometer: number | null;
  counter_engine_hours: number | null;
  counter_ignition: boolean | null;
  telemetry: string;
  alarms: LatestTelemetry['alarms'];
}

const LOCK = 'SELECT id, xmin::text AS version FROM devices WHERE id = ANY($1) ORDER BY id FOR NO KEY UPDATE';
const READ = `
  SELECT id, xmin::text AS version, last_lat, last_lng, last_speed, last_heading, (extract(epoch FROM last_update) * 1000)::float8 AS last_update,
    (extract(epoch FROM counter_time) * 1000)::float8 AS counter_time, counter_odometer, counter_engine_hours, counter_ignition, telemetry, alarms
  FROM devices WHERE id = ANY($1)`;

/**
 * Locks the devices' rows until the transaction ends and gives their state: the kept one where the
 * row is still at its version, else read. Unknown ids are left out.
 */
export async function lockDeviceStates(tx: Queryable, ids: Iterable<string>, kept: KeptStates): Promise<Map<string, DeviceState>> {
  const locked = await tx.query<{ id: string; version: string }>(LOCK, [[...new Set(ids)].sort()]);
  const states = new Map<string, DeviceState>();
  const unread: string[] = [];
  for (const { id, version } of locked) {
    const state = kept.take(id, version);
    if (state) states.set(id, state);
    else unread.push(id);
  }
  if (unread.length > 0) for (const r of await tx.query<Row>(READ, [unread])) states.set(r.id, stateOf(r));
  return states;
}

function stateOf(r: Row): DeviceState {
  const lastUpdate = r.last_update === null ? null : new Date(r.last_update);
  const current =
    lastUpdate && Number.isFinite(r.last_lat) && Number.isFinite(r.last_lng)
      ? { lat: r.last_lat!, lng: r.last_lng!, speed: r.last_speed, heading: r.last_heading ?? 0, time: lastUpdate }
      : null;
  return {
    id: r.id,
    current,
    // A device from before the counters starts counting after its current position.
    counters: { time: r.counter_time === null ? lastUpdate : new Date(r.counter_time), odometer: r.counter_odometer, engineHours: r.counter_engine_hours, ignition: r.counter_ignition },
    latest: { telemetry: JSON.parse(r.telemetry) as LatestTelemetry['telemetry'], alarms: r.alarms },
    changed: { current: false, counters: false, latest: false },
    version: r.version,
  };
}

/**
 * Writes back what changed, one statement for the batch; a part left unchanged keeps its columns.
 * The ids are also given as an array, so the rows are found down the key (the planner cannot know
 * how few rows the JSON holds, and would otherwise read every device).
 * The rows go as one JSON document (one native stringify here, one parse there): far cheaper than
 * thirteen arrays whose JSON texts would each be escaped into an array literal. Times go as epoch
 * milliseconds. The states written take the transaction's id as their version.
 */
export async function saveDeviceStates(tx: Queryable, states: Iterable<DeviceState>): Promise<void> {
  const dirty: Record<string, unknown>[] = [];
  const written: DeviceState[] = [];
  for (const s of states) {
    if (!s.changed.current && !s.changed.counters && !s.changed.latest) continue;
    const row: Record<string, unknown> = { id: s.id };
    if (s.changed.current) {
      const c = s.current!;
      row.t = c.time.getTime();
      row.lat = c.lat;
      row.lng = c.lng;
      row.speed = c.speed;
      row.heading = c.heading;
    }
    if (s.changed.counters) {
      row.counted = true;
      row.ct = s.counters.time?.getTime() ?? null;
      row.co = s.counters.odometer;
      row.ch = s.counters.engineHours;
      row.ci = s.counters.ignition;
    }
    if (s.changed.latest) {
      row.tel = s.latest.telemetry;
      row.al = s.latest.alarms;
    }
    dirty.push(row);
    written.push(s);
  }
  if (dirty.length === 0) return;
  const [{ xid }] = (await tx.query<{ xid: string }>(
    `WITH written AS (UPDATE devices d SET
       last_lat = coalesce(u.lat, d.last_lat), last_lng = coalesce(u.lng, d.last_lng), last_speed = coalesce(u.speed, d.last_speed),
       last_heading = CASE WHEN u.t IS NULL THEN d.last_heading ELSE u.heading END, last_update = coalesce(to_timestamp(u.t / 1000), d.last_update),
       counter_time = CASE WHEN u.counted THEN to_timestamp(u.ct / 1000) ELSE d.counter_time END,
       counter_odometer = CASE WHEN u.counted THEN u.co ELSE d.counter_odometer END,
       counter_engine_hours = CASE WHEN u.counted THEN u.ch ELSE d.counter_engine_hours END,
       counter_ignition = CASE WHEN u.counted THEN u.ci ELSE d.counter_ignition END,
       telemetry = coalesce(u.tel::text, d.telemetry), alarms = coalesce(u.al::jsonb, d.alarms)
     FROM json_to_recordset($1::json) AS u(id text, t float8, lat float8, lng float8, speed float8, heading float8,
       counted boolean, ct float8, co float8, ch float8, ci boolean, tel json, al json)
     WHERE d.id = u.id AND d.id = ANY($2::text[]) RETURNING 1)
     SELECT (pg_current_xact_id()::text::bigint % 4294967296)::text AS xid`,
    [JSON.stringify(dirty), dirty.map((r) => r.id)],
  )) as [{ xid: string }];
  // The rows' xmin from now on (the transaction's id, without its epoch).
  for (const s of written) s.version = xid;
}
