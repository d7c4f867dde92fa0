// The telemetry vocabulary: every attribute a position may carry, with its type and unit, in one
// table. Names are Traccar's position keys wherever Traccar means the same thing in the same unit;
// where Traccar's unit differs the name differs too (engineHours in seconds, Traccar's `hours` in
// ms). The table is the single source of the TypeScript type, the zod schema (validation at ingest,
// the API document), the custom-rule variable check and docs/telemetry.md. Raw protocol values with
// no general meaning go under `io`.
import { z } from 'zod';

/** Traccar's alarm names: a closed set. */
export const ALARMS = [
  'general', 'sos', 'vibration', 'movement', 'lowspeed', 'overspeed', 'fallDown', 'lowPower', 'lowBattery',
  'fault', 'powerOff', 'powerOn', 'door', 'lock', 'unlock', 'geofence', 'geofenceEnter', 'geofenceExit',
  'gpsAntennaCut', 'accident', 'tow', 'idle', 'highRpm', 'hardAcceleration', 'hardBraking', 'hardCornering',
  'laneChange', 'fatigueDriving', 'powerCut', 'powerRestored', 'jamming', 'temperature', 'parking', 'bonnet',
  'footBrake', 'fuelLeak', 'tampering', 'removing',
] as const;
export type Alarm = (typeof ALARMS)[number];
/**
 * Several alarms at once are joined with commas, as Traccar stores them ("powerCut,sos"): stored
 * positions, webhooks and custom rules (`==`, `in`) keep reading what Traccar users know.
 */
export type AlarmList = Alarm | `${Alarm},${string}`;

type Kind = 'boolean' | 'number' | 'integer' | 'string' | 'alarm' | 'code' | 'network';
interface Entry {
  type: Kind;
  /** The unit, or null for a value that has none (a flag, a count, a text). */
  unit: string | null;
  description: string;
  /** Traccar's key and the factor from Traccar's unit to ours; null where Traccar has no such key. */
  traccar: { key: string; factor: number } | null;
}

const same = (key: string) => ({ key, factor: 1 });
const entry = <T extends Kind>(type: T, unit: string | null, description: string, traccar: Entry['traccar']) => ({ type, unit, description, traccar });

/** Keys with one name each. */
export const TELEMETRY = {
  ignition: entry('boolean', null, 'Ignition (ACC line) on', same('ignition')),
  motion: entry('boolean', null, 'The device reports it is moving', same('motion')),
  odometer: entry('number', 'm', 'Total distance', same('odometer')),
  tripOdometer: entry('number', 'm', 'Distance of the current trip', same('tripOdometer')),
  engineHours: entry('number', 's', 'Engine running time', { key: 'hours', factor: 0.001 }),
  fuel: entry('number', 'L', 'Fuel in the tank', same('fuel')),
  fuelLevel: entry('number', '%', 'Fuel in the tank, percent of its capacity', same('fuelLevel')),
  fuelUsed: entry('number', 'L', 'Fuel used', same('fuelUsed')),
  battery: entry('number', 'V', 'Internal battery voltage', same('battery')),
  batteryLevel: entry('number', '%', 'Internal battery charge', same('batteryLevel')),
  power: entry('number', 'V', 'External power voltage', same('power')),
  charge: entry('boolean', null, 'The battery is charging', same('charge')),
  rssi: entry('integer', null, 'Mobile signal strength as the device reports it', same('rssi')),
  hdop: entry('number', null, 'Horizontal dilution of precision', same('hdop')),
  pdop: entry('number', null, 'Position dilution of precision', same('pdop')),
  accuracy: entry('number', 'm', 'Horizontal accuracy of the fix', same('accuracy')),
  alarm: entry('alarm', null, `Alarms, comma-separated: ${ALARMS.join(', ')}`, same('alarm')),
  driverUniqueId: entry('string', null, 'Driver key read by the vehicle (iButton, RFID card)', same('driverUniqueId')),
  input: entry('integer', null, 'Digital inputs as a bitmask', same('input')),
  output: entry('integer', null, 'Digital outputs as a bitmask', same('output')),
  door: entry('boolean', null, 'A door is open', same('door')),
  blocked: entry('boolean', null, 'The engine is blocked (immobiliser)', same('blocked')),
  armed: entry('boolean', null, 'The alarm system is armed', same('armed')),
  rpm: entry('number', 'rpm', 'Engine speed', same('rpm')),
  obdSpeed: entry('number', 'km/h', 'Vehicle speed read from the OBD port', same('obdSpeed')),
  coolantTemp: entry('number', '°C', 'Engine coolant temperature', same('coolantTemp')),
  throttle: entry('number', '%', 'Throttle position', same('throttle')),
  engineLoad: entry('number', '%', 'Engine load', same('engineLoad')),
  vin: entry('string', null, 'Vehicle identification number', same('vin')),
  iccid: entry('string', null, 'SIM card id', same('iccid')),
  priority: entry('integer', null, 'Record priority as the device reports it (Teltonika: 2 is panic)', same('priority')),
  event: entry('code', null, 'Protocol event code: why the device sent the report', same('event')),
  archive: entry('boolean', null, 'Re-sent from the device memory rather than live', same('archive')),
  result: entry('string', null, 'Text answer to a command', same('result')),
  computed: entry('string', null, 'Counters the tracker computed because the device does not report them, comma-separated (odometer, engineHours)', null),
  network: entry('network', null, 'Cell towers and Wi-Fi access points the device sees, to locate it without GPS', same('network')),
} as const satisfies Record<string, Entry>;

/** Numbered keys: temp1, temp2…, adc1…, in1…, out1… */
export const TELEMETRY_FAMILIES = {
  temp: entry('number', '°C', 'Temperature sensor n', same('temp')),
  adc: entry('number', 'V', 'Analog input n', same('adc')),
  in: entry('boolean', null, 'Digital input n is on', same('in')),
  out: entry('boolean', null, 'Digital output n is on', same('out')),
} as const satisfies Record<string, Entry>;

type ValueOf<K extends Kind> = K extends 'boolean' ? boolean : K extends 'number' | 'integer' ? number : K extends 'string' ? string : K extends 'alarm' ? AlarmList : K extends 'network' ? NetworkInfo : number | string;
export type IoValue = number | string | boolean;
export type TelemetryKey = keyof typeof TELEMETRY;

/** A position's attributes: vocabulary keys only, raw protocol values under `io`. */
export type Telemetry = { [K in TelemetryKey]?: ValueOf<(typeof TELEMETRY)[K]['type']> } & {
  [K in keyof typeof TELEMETRY_FAMILIES as `${K}${number}`]?: ValueOf<(typeof TELEMETRY_FAMILIES)[K]['type']>;
} & {
  /** Raw values by the protocol's own id (Teltonika IO ids, GT06 extension fields…). */
  io?: Record<string, IoValue>;
};

/** Keys whose values are numbers / booleans, for code that sets them by name. */
export type NumberKey = { [K in keyof Telemetry]-?: NonNullable<Telemetry[K]> extends number ? K : never }[keyof Telemetry];
export type BooleanKey = { [K in keyof Telemetry]-?: NonNullable<Telemetry[K]> extends boolean ? K : never }[keyof Telemetry];

const FAMILY = /^(temp|adc|in|out)([1-9][0-9]{0,2})$/;

/** The table entry of a key (a numbered one included), or undefined for a key outside the vocabulary. */
export function telemetryEntry(key: string): Entry | undefined {
  if (Object.hasOwn(TELEMETRY, key)) return TELEMETRY[key as TelemetryKey];
  const m = FAMILY.exec(key);
  return m ? TELEMETRY_FAMILIES[m[1] as keyof typeof TELEMETRY_FAMILIES] : undefined;
}

/**
 * What a device sees of the mobile and Wi-Fi networks, modelled on Traccar's `network` (and the
 * geolocation services' request): cell ids with their area, country and operator codes, access
 * points by MAC address. Signal strengths are as the device reports them.
 */
const radioType = z.enum(['gsm', 'cdma', 'wcdma', 'lte', 'nr']);
/** Limits and patterns the schemas below and the direct checks of isTelemetry share. */
const MAX_TEXT = 256;
const MAX_CODE_TEXT = 64;
const MAX_IO_KEY = 64;
const MAX_IO_TEXT = 4096;
const MAX_LIST = 32;
const MAC_ADDRESS = /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/;
const ALARM_NAMES = new Set<string>(ALARMS);
const cellTowerSchema = z.strictObject({
  cellId: z.number().int().nonnegative(),
  locationAreaCode: z.number().int().nonnegative(),
  mobileCountryCode: z.number().int().nonnegative().optional(),
  mobileNetworkCode: z.number().int().nonnegative().optional(),
  signalStrength: z.number().optional(),
  radioType: radioType.optional(),
});
const wifiAccessPointSchema = z.strictObject({
  macAddress: z.string().regex(MAC_ADDRESS),
  signalStrength: z.number().optional(),
  channel: z.number().int().optional(),
});
const networkSchema = z.strictObject({
  radioType: radioType.optional(),
  cellTowers: z.array(cellTowerSchema).max(MAX_LIST).optional(),
  wifiAccessPoints: z.array(wifiAccessPointSchema).max(MAX_LIST).optional(),
});
export type CellTower = z.infer<typeof cellTowerSchema>;
export type WifiAccessPoint = z.infer<typeof wifiAccessPointSchema>;
export type NetworkInfo = z.infer<typeof networkSchema>;

const isAlarmList = (v: string) => v.split(',').every((a) => ALARM_NAMES.has(a));
const alarmList = z.string().refine(isAlarmList, { message: 'unknown alarm name' });

function valueSchema(e: Entry): z.ZodType {
  const base = { boolean: z.boolean(), number: z.number(), integer: z.number().int(), string: z.string().max(MAX_TEXT), alarm: alarmList, code: z.union([z.number().int(), z.string().max(MAX_CODE_TEXT)]), network: networkSchema }[e.type];
  return base.meta({ description: e.unit ? `${e.description} (${e.unit})` : e.description });
}
/** Built once: the ingest check and the OsmAnd decoder look values up per attribute. */
const VALUE_SCHEMAS = new Map<Entry, z.ZodType>([...Object.values(TELEMETRY), ...Object.values(TELEMETRY_FAMILIES)].map((e) => [e, valueSchema(e)]));
const schemaOf = (e: Entry) => VALUE_SCHEMAS.get(e)!;

const ioSchema = z.record(z.string().max(MAX_IO_KEY), z.union([z.number(), z.string().max(MAX_IO_TEXT), z.boolean()]));

/**
 * The vocabulary as a zod schema: a strict object (an unknown key is refused, numbers must be
 * finite); numbered keys are checked against their family.
 */
/** Each named key's schema (a key of the vocabulary, and io). */
const FIELDS: Record<string, z.ZodType> = { ...Object.fromEntries(Object.entries(TELEMETRY).map(([k, e]) => [k, schemaOf(e)])), io: ioSchema };

export const telemetrySchema = z
  .object(Object.fromEntries(Object.entries(FIELDS).map(([k, schema]) => [k, schema.optional()])))
  .catchall(z.union([z.number(), z.boolean()]))
  .superRefine((value, ctx) => {
    for (const [key, v] of Object.entries(value)) {
      if (key === 'io' || key === 'network' || Object.hasOwn(TELEMETRY, key)) continue;
      const family = telemetryEntry(key);
      if (!family) ctx.addIssue({ code: 'custom', path: [key], message: `unknown telemetry key "${key}"` });
      else if (!schemaOf(family).safeParse(v).success) ctx.addIssue({ code: 'custom', path: [key], message: `expected ${family.type}` });
    }
  })
  .meta({ description: 'Position attributes: the telemetry vocabulary (docs/telemetry.md), raw protocol values under io' });

/**
 * The check ingest runs on every attribute set: true when `telemetrySchema` accepts it. Each value
 * of a named or numbered key (and io) is checked here directly, as strictly as its schema checks it;
 * a set with a key the vocabulary does not name goes to the schema whole.
 */
export function isTelemetry(attributes: Record<string, unknown>): boolean {
  for (const key in attributes) {
    const v = attributes[key];
    if (v === undefined) continue;
    if (key === 'io') {
      if (!isIo(v)) return false;
      continue;
    }
    const e = telemetryEntry(key);
    if (!e) return telemetrySchema.safeParse(attributes).success;
    if (!isValueOf(e.type, v)) return false;
  }
  return true;
}

const isInteger = (v: unknown, min = -Infinity) => Number.isSafeInteger(v) && (v as number) >= min;
const isNumber = (v: unknown) => typeof v === 'number' && Number.isFinite(v);
const isText = (v: unknown, max: number) => typeof v === 'string' && v.length <= max;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const RADIO_TYPES = new Set<unknown>(radioType.options);
/** Keys of a strict object, each with its check (an optional one may be absent or undefined). */
type Shape = Record<string, (v: unknown) => boolean>;
const CELL_TOWER: Shape = {
  cellId: (v) => isInteger(v, 0),
  locationAreaCode: (v) => isInteger(v, 0),
  mobileCountryCode: (v) => v === undefined || isInteger(v, 0),
  mobileNetworkCode: (v) => v === undefined || isInteger(v, 0),
  signalStrength: (v) => v === undefined || isNumber(v),
  radioType: (v) => v === undefined || RADIO_TYPES.has(v),
};
const WIFI_ACCESS_POINT: Shape = {
  macAddress: (v) => typeof v === 'string' && MAC_ADDRESS.test(v),
  signalStrength: (v) => v === undefined || isNumber(v),
  channel: (v) => v === undefined || isInteger(v),
};
const listOf = (shape: Shape) => (v: unknown) => {
  if (v === undefined) return true;
  if (!Array.isArray(v) || v.length > MAX_LIST) return false;
  for (const x of v) if (!fits(shape, x)) return false;
  return true;
};
const NETWORK: Shape = { radioType: CELL_TOWER.radioType!, cellTowers: listOf(CELL_TOWER), wifiAccessPoints: listOf(WIFI_ACCESS_POINT) };

function fits(shape: Shape, v: unknown): boolean {
  if (!isObject(v)) return false;
  for (const key in v) if (!Object.hasOwn(shape, key)) return false;
  for (const key in shape) if (!shape[key]!(v[key])) return false;
  return true;
}

/**
 * What the value schemas above accept, checked directly: the ingest check runs on every position, and
 * a schema's parse costs a microsecond per value (the vocabulary tests hold the two to the same answers).
 */
function isValueOf(kind: Kind, v: unknown): boolean {
  switch (kind) {
    case 'boolean':
      return typeof v === 'boolean';
    case 'number':
      return isNumber(v);
    case 'integer':
      return isInteger(v);
    case 'string':
      return isText(v, MAX_TEXT);
    case 'alarm':
      return typeof v === 'string' && isAlarmList(v);
    case 'code':
      return isInteger(v) || isText(v, MAX_CODE_TEXT);
    case 'network':
      return fits(NETWORK, v);
  }
}

/**
 * The raw map's keys are mostly parameter numbers, which V8 keeps as array elements; `for…in` over
 * such an object takes its slow path (about 0.6 µs a Ruptela position more than Object.keys).
 */
function isIo(v: unknown): boolean {
  if (!isObject(v)) return false;
  for (const key of Object.keys(v)) {
    const x = v[key];
    if (key.length > MAX_IO_KEY || !(isNumber(x) || isText(x, MAX_IO_TEXT) || typeof x === 'boolean')) return false;
  }
  return true;
}

/** The alarms of a position's attributes, in the order reported. */
export function alarmsOf(t: Telemetry): Alarm[] {
  return t.alarm === undefined ? [] : (t.alarm.split(',') as Alarm[]);
}

/** Adds an alarm to the attributes (once), keeping those already there. */
export function addAlarm(t: Telemetry, alarm: Alarm): void {
  const list = alarmsOf(t);
  if (!list.includes(alarm)) t.alarm = [...list, alarm].join(',') as AlarmList;
}

const BY_TRACCAR_KEY = new Map(Object.entries(TELEMETRY).flatMap(([key, e]) => (e.traccar && e.traccar.key !== key ? [[e.traccar.key, { key, factor: e.traccar.factor }] as const] : [])));

/**
 * A value sent under a Traccar key (OsmAnd clients speak Traccar's names), as our key and our unit,
 * or null when it is not vocabulary or not of the key's type (it then belongs under `io`).
 */
export function fromTraccar(key: string, value: IoValue): [string, IoValue] | null {
  const renamed = BY_TRACCAR_KEY.get(key);
  const ours = renamed?.key ?? key;
  const e = telemetryEntry(ours);
  if (!e) return null;
  const scaled = renamed && typeof value === 'number' ? value * renamed.factor : value;
  return isValueOf(e.type, scaled) ? [ours, scaled] : null;
}

/** The vocabulary key closest in spelling to `name` (for "did you mean"). */
export function closestTelemetryKey(name: string): string {
  const candidates = [...Object.keys(TELEMETRY), ...Object.keys(TELEMETRY_FAMILIES).map((f) => `${f}1`), 'io'];
  let best = candidates[0]!;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = editDistance(name.toLowerCase(), c.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [c, d];
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}
