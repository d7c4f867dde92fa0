// OsmAnd / Traccar Client HTTP reports. Two shapes arrive:
//  - query parameters: id|deviceid, timestamp, lat & lon (or location=lat,lon), speed (knots),
//    bearing|heading, altitude, batt, and any Traccar position key (alarm, hdop, ignition, hours…);
//  - Traccar Client JSON: {device_id, location: {timestamp, coords: {latitude, longitude,
//    speed (m/s), heading, altitude, accuracy}, battery: {level 0..1}, …}} (location may be a list).
// Traccar keys become the vocabulary (in our units); any other parameter or extra is kept under `io`.
// The HTTP layer passes its receive time for reports that carry no timestamp.
import { fromTraccar, type IoValue, type Telemetry } from '../../positions/telemetry.js';
import { KNOTS_TO_KMH } from '../reader.js';
import type { DecodedPosition } from '../types.js';

export type OsmAndResult =
  /** `attributes`: what a report without coordinates still says (an alarm such as `sos`). */
  | { ok: true; identity: string; positions: DecodedPosition[]; attributes?: Telemetry }
  | { ok: false; error: string };

/** Query keys consumed by the decoder itself (everything else is kept as an attribute or under io). */
const CONSUMED = new Set(['id', 'deviceid', 'timestamp', 'lat', 'lon', 'location', 'speed', 'bearing', 'heading', 'altitude', 'batt', 'valid']);

export function decodeOsmAnd(input: Record<string, unknown>, receivedAt: Date = new Date()): OsmAndResult {
  const json = 'device_id' in input || (typeof input.location === 'object' && input.location !== null);
  return json ? decodeOsmAndJson(input, receivedAt) : decodeOsmAndQuery(input, receivedAt);
}

/**
 * Query parameters as HTTP frameworks hand them over: strings, or arrays for repeated keys
 * (the first value wins). Anything else is ignored.
 */
export function decodeOsmAndQuery(raw: Record<string, unknown>, receivedAt: Date = new Date()): OsmAndResult {
  const query: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw)) {
    const first = Array.isArray(value) ? value[0] : value;
    if (typeof first === 'string') query[key] = first;
  }
  const identity = query.id ?? query.deviceid;
  if (!identity) return { ok: false, error: 'missing device id (id or deviceid)' };
  const time = query.timestamp === undefined ? receivedAt : parseTime(query.timestamp);
  if (!time) return { ok: false, error: `invalid timestamp: ${query.timestamp}` };

  let latText = query.lat;
  let lonText = query.lon;
  if (query.location !== undefined) [latText, lonText] = query.location.split(',');
  const attributes: Telemetry = {};
  for (const [key, value] of Object.entries(query)) {
    if (!CONSUMED.has(key)) keep(attributes, key, scalar(value));
  }
  if (query.batt !== undefined) attributes.batteryLevel = Number(query.batt);
  // Network-only reports (cell/wifi without coordinates) identify the device but carry no fix;
  // what they say (an alarm) is kept.
  if (latText === undefined && lonText === undefined) {
    return Object.keys(attributes).length > 0 ? { ok: true, identity, positions: [], attributes } : { ok: true, identity, positions: [] };
  }
  const built = build({
    time,
    lat: Number(latText),
    lng: Number(lonText),
    speedKmh: query.speed === undefined ? 0 : Number(query.speed) * KNOTS_TO_KMH,
    heading: Number(query.bearing ?? query.heading ?? 0),
    altitude: query.altitude === undefined ? undefined : Number(query.altitude),
    valid: query.valid === undefined ? true : query.valid === 'true' || query.valid === '1',
    attributes,
  });
  return typeof built === 'string' ? { ok: false, error: built } : { ok: true, identity, positions: [built] };
}

export function decodeOsmAndJson(body: Record<string, unknown>, receivedAt: Date = new Date()): OsmAndResult {
  const identity = body.device_id;
  if (typeof identity !== 'string' && typeof identity !== 'number') return { ok: false, error: 'missing device_id' };
  const locations = Array.isArray(body.location) ? body.location : [body.location];
  const positions: DecodedPosition[] = [];
  for (const location of locations) {
    const built = fromJsonLocation(location, receivedAt);
    if (typeof built === 'string') return { ok: false, error: built };
    positions.push(built);
  }
  return { ok: true, identity: String(identity), positions };
}

function fromJsonLocation(location: unknown, receivedAt: Date): DecodedPosition | string {
  if (!isObject(location) || !isObject(location.coords)) return 'location.coords missing';
  const c = location.coords;
  const time = location.timestamp === undefined ? receivedAt : parseTime(String(location.timestamp));
  if (!time) return `invalid timestamp: ${String(location.timestamp)}`;
  const attributes: Telemetry = {};
  if (typeof location.event === 'string') attributes.event = location.event;
  if (typeof location.is_moving === 'boolean') attributes.motion = location.is_moving;
  if (typeof location.odometer === 'number') attributes.odometer = location.odometer;
  if (typeof location.mock === 'boolean') keep(attributes, 'mock', location.mock);
  if (isObject(location.activity) && typeof location.activity.type === 'string') keep(attributes, 'activity', location.activity.type);
  if (isObject(location.battery) && typeof location.battery.level === 'number' && location.battery.level >= 0) {
    attributes.batteryLevel = Math.round(location.battery.level * 100);
    if (typeof location.battery.is_charging === 'boolean') attributes.charge = location.battery.is_charging;
  }
  if (typeof c.accuracy === 'number') attributes.accuracy = c.accuracy;
  if (isObject(location.extras)) {
    for (const [key, value] of Object.entries(location.extras)) keep(attributes, key, typeof value === 'object' ? JSON.stringify(value) : (value as IoValue));
  }
  // The client reports -1 for speed and heading it does not know.
  const speed = typeof c.speed === 'number' && c.speed >= 0 ? c.speed * 3.6 : 0;
  const heading = typeof c.heading === 'number' && c.heading >= 0 ? c.heading : 0;
  return build({
    time,
    lat: Number(c.latitude),
    lng: Number(c.longitude),
    speedKmh: speed,
    heading,
    altitude: typeof c.altitude === 'number' ? c.altitude : undefined,
    valid: true,
    attributes,
  });
}

interface Fields {
  time: Date;
  lat: number;
  lng: number;
  speedKmh: number;
  heading: number;
  altitude: number | undefined;
  valid: boolean;
  attributes: Telemetry;
}

/** Range checks shared by both shapes; returns an error message when a value is unusable. */
function build(f: Fields): DecodedPosition | string {
  if (!Number.isFinite(f.lat) || Math.abs(f.lat) > 90) return 'latitude out of range';
  if (!Number.isFinite(f.lng) || Math.abs(f.lng) > 180) return 'longitude out of range';
  if (!Number.isFinite(f.speedKmh) || f.speedKmh < 0) return 'invalid speed';
  if (!Number.isFinite(f.heading)) return 'invalid heading';
  const position: DecodedPosition = {
    deviceTime: f.time,
    valid: f.valid,
    lat: f.lat,
    lng: f.lng,
    speed: f.speedKmh,
    heading: ((f.heading % 360) + 360) % 360,
    attributes: f.attributes,
  };
  if (f.altitude !== undefined && Number.isFinite(f.altitude)) position.altitude = f.altitude;
  return position;
}

/** Unix seconds, unix milliseconds, or an ISO-like date ("2014-06-04 09:10:11" is taken as UTC). */
function parseTime(value: string): Date | null {
  let ms: number;
  if (/^\d+(\.\d+)?$/.test(value)) {
    const n = Number(value);
    ms = n > 1e12 ? n : n * 1000;
  } else {
    const iso = /^\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d(\.\d+)?)?$/.test(value) ? value.replace(' ', 'T') + 'Z' : value;
    ms = Date.parse(iso);
  }
  return Number.isFinite(ms) ? new Date(ms) : null;
}

/**
 * A client's key as vocabulary when it is a Traccar key of the right type, under `io` otherwise.
 * A "__proto__" key from the client must not replace an object's prototype.
 */
function keep(attributes: Telemetry, key: string, value: IoValue | undefined): void {
  if (value === undefined || key === '__proto__') return;
  const known = fromTraccar(key, value);
  if (known) Object.assign(attributes, { [known[0]]: known[1] });
  else attributes.io = { ...attributes.io, [key]: value };
}

function scalar(value: string): IoValue {
  if (value === 'true' || value === 'false') return value === 'true';
  const n = Number(value);
  return value.trim() !== '' && Number.isFinite(n) ? n : value;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
