// Hostile devices: reports that are well-formed on the wire (right framing, right checksum) but carry
// values no real fix has — times far in the future or unparseable, coordinates off the globe, absurd
// speeds and altitudes, non-finite attributes — for each protocol the tracker speaks, built with the
// simulator's frame builders, plus a bounded flood loop to send them in numbers.
import type { DeviceFix } from '../../tracker/simulator/frames/fix.js';
import { gt06Position } from '../../tracker/simulator/frames/gt06.js';
import { h02Position } from '../../tracker/simulator/frames/h02.js';
import { osmandQuery } from '../../tracker/simulator/frames/osmand.js';
import { ruptelaPosition } from '../../tracker/simulator/frames/ruptela.js';
import { teltonikaAvl, teltonikaRecord } from '../../tracker/simulator/frames/teltonika.js';
import { wialonShortPosition } from '../../tracker/simulator/frames/wialon.js';

export type HostileKind = 'time' | 'latitude' | 'longitude' | 'speed' | 'altitude' | 'attribute';
export type HostileProtocol = 'gt06' | 'teltonika' | 'h02' | 'osmand' | 'ruptela' | 'wialon';

/**
 * What each protocol's wire format can carry (GT06 and H02 decoders already refuse coordinates past
 * the poles; GT06's speed is one byte; only a text protocol can say NaN).
 */
export const HOSTILE_KINDS: Record<HostileProtocol, HostileKind[]> = {
  gt06: ['time'],
  teltonika: ['time', 'latitude', 'longitude', 'speed', 'altitude'],
  h02: ['time', 'speed', 'altitude'],
  osmand: ['time', 'latitude', 'longitude', 'speed', 'altitude', 'attribute'],
  ruptela: ['time', 'latitude', 'longitude', 'speed'],
  wialon: ['time', 'latitude', 'longitude', 'speed', 'altitude'],
};

/** A fix any check accepts: central Lisbon, now (or at `time`). */
export function sensibleFix(time = new Date()): DeviceFix {
  return { time: new Date(Math.floor(time.getTime() / 1000) * 1000), lat: 38.7223, lng: -9.1393, speed: 42, heading: 90, altitude: 80, satellites: 9 };
}

/** 6.25e15 ms: a valid JavaScript date in the year 200 000, far past anything a device could mean. */
const YEAR_200000_MS = 6_250_000_000_000_000;

/** GT06 0x22 report; its date byte is years after 2000, so 2200 is as far as it goes. */
export function hostileGt06(kind: HostileKind, serial = 1): Buffer {
  if (kind !== 'time') throw new Error(`GT06 cannot carry a hostile ${kind}`);
  return gt06Position({ ...sensibleFix(), time: new Date(Date.UTC(2200, 0, 1)) }, {}, serial);
}

/** One Teltonika record with the one bad value (lat/lng are 1e-7 degree int32s, speed a uint16, altitude an int16). */
function teltonikaFix(kind: HostileKind): DeviceFix {
  const fix = sensibleFix();
  if (kind === 'time') return { ...fix, time: new Date(YEAR_200000_MS) };
  if (kind === 'latitude') return { ...fix, lat: 200 };
  if (kind === 'longitude') return { ...fix, lng: 200 };
  if (kind === 'speed') return { ...fix, speed: 65_535 };
  if (kind === 'altitude') return { ...fix, altitude: 30_000 };
  throw new Error(`Teltonika cannot carry a hostile ${kind}`);
}

/**
 * A Codec 8 packet of the hostile records, after `good` sensible ones (seconds apart, ending now), so a
 * test sees whether the good records of a frame are kept when its bad ones are refused.
 */
export function hostileTeltonika(kinds: HostileKind[], good = 0): Buffer {
  const now = Date.now();
  const sensible = Array.from({ length: good }, (_, i) => teltonikaRecord(sensibleFix(new Date(now - (good - i) * 1000))));
  return teltonikaAvl([...sensible, ...kinds.map((k) => teltonikaRecord(teltonikaFix(k)))]);
}

/** H02 V1 text report; the altitude rides in the extended V1 fields (odometer, temp, fuel, altitude, LAC, cell). */
export function hostileH02(id: string, kind: HostileKind): Buffer {
  const fix = sensibleFix();
  if (kind === 'time') return h02Position(id, { ...fix, time: new Date(Date.UTC(2099, 11, 31)) });
  if (kind === 'speed') return h02Position(id, { ...fix, speed: 1e307 });
  if (kind === 'altitude') return Buffer.from(h02Position(id, fix).toString('latin1').replace(/#$/, ',0,20,50,99999999,0,0#'), 'latin1');
  throw new Error(`H02 cannot carry a hostile ${kind}`);
}

/** Ruptela extended record: 1e-7 degree int32 coordinates reach ±214°, speed is a uint16 of km/h. */
export function hostileRuptela(imei: string, kind: HostileKind): Buffer {
  const fix = sensibleFix();
  const bad: Partial<Record<HostileKind, Partial<DeviceFix>>> = { time: { time: new Date(Date.UTC(2100, 0, 1)) }, latitude: { lat: 200 }, longitude: { lng: -200 }, speed: { speed: 60_000 } };
  if (!bad[kind]) throw new Error(`Ruptela cannot carry a hostile ${kind}`);
  return ruptelaPosition(imei, { ...fix, ...bad[kind] });
}

/** Wialon IPS short data packet: text fields, so anything a number can say. */
export function hostileWialon(kind: HostileKind): Buffer {
  const fix = sensibleFix();
  const bad: Partial<Record<HostileKind, Partial<DeviceFix>>> = { time: { time: new Date(Date.UTC(2099, 11, 31)) }, latitude: { lat: 95 }, longitude: { lng: 195 }, speed: { speed: 1e307 }, altitude: { altitude: 1e300 } };
  if (!bad[kind]) throw new Error(`Wialon IPS cannot carry a hostile ${kind}`);
  return wialonShortPosition({ ...fix, ...bad[kind] });
}

/** The OsmAnd query values of each kind, as the security review sent them. */
export const OSMAND_HOSTILE: Record<HostileKind, Record<string, string>> = {
  time: { timestamp: String(YEAR_200000_MS) },
  latitude: { lat: '1e300' },
  longitude: { lon: '-1e300' },
  speed: { speed: '1e307' },
  altitude: { altitude: '1e300' },
  attribute: { batt: 'NaN' },
};

/** OsmAnd query parameters of a sensible report with one hostile value. */
export function hostileOsmAnd(id: string, kind: HostileKind): Record<string, string> {
  return { ...osmandQuery(id, sensibleFix()), ...OSMAND_HOSTILE[kind] };
}

export interface FloodOptions {
  /** Stop after this long (ms). */
  durationMs: number;
  /** Stop after this many sends, whichever comes first. */
  maxSends?: number;
  /** Sends in flight at once. */
  concurrency?: number;
  /** Stop early when this resolves (for example once the test's own traffic is done). */
  until?: Promise<unknown>;
}

/**
 * Calls `send(i)` over and over, `concurrency` at a time, until the time, the count or `until` ends it.
 * A failed send counts and the flood goes on (a hostile device does not give up). Resolves to the
 * number of sends made and how many failed.
 */
export async function flood(send: (i: number) => Promise<unknown>, options: FloodOptions): Promise<{ sent: number; failed: number }> {
  const deadline = Date.now() + options.durationMs;
  const max = options.maxSends ?? Infinity;
  let stop = false;
  void options.until?.finally(() => (stop = true));
  let sent = 0;
  let failed = 0;
  const worker = async (): Promise<void> => {
    while (!stop && Date.now() < deadline && sent < max) {
      const i = sent++;
      await send(i).catch(() => failed++);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 1 }, worker));
  return { sent, failed };
}
