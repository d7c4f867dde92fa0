// Building blocks shared by GT06 messages: the message being decoded, dates, the GPS block, cell
// blocks, and how a message's findings become a DecodeResult.
import type { CellTower, NetworkInfo, Telemetry } from '../../positions/telemetry.js';
import { type Reader, utcDate } from '../reader.js';
import type { DecodedPosition, DecodeResult } from '../types.js';
import type { Variant } from './variant.js';

/** One frame's message: its number, framing, declared length, recognised layout and body. */
export interface Message {
  proto: number;
  extended: boolean;
  /** The length field as sent (some layouts are told apart by it). */
  declared: number;
  variant: Variant;
  /** The body: after the message number, up to the serial number. */
  r: Reader;
  frame: Buffer;
}

/** What a message handler found; the envelope (identity, ACK, checksum) is added by the decoder. */
export type Found = Pick<DecodeResult, 'positions' | 'attributes' | 'commandReply' | 'commandSeq' | 'reply' | 'heartbeat'>;

/** A fix without its attributes. */
export type Fix = Omit<DecodedPosition, 'attributes'>;

/** yy MM dd HH mm ss as binary bytes, UTC. */
export function readDate(r: Reader): Date | null {
  const [yy, mo, dd, hh, mi, ss] = [r.u8(), r.u8(), r.u8(), r.u8(), r.u8(), r.u8()];
  return utcDate(2000 + yy, mo, dd, hh, mi, ss);
}

/** yy MM dd HH mm ss as BCD bytes (the Wi-Fi messages), UTC. */
export function readBcdDate(r: Reader): Date | null {
  const [yy, mo, dd, hh, mi, ss] = [...r.bytes(6)].map((b) => (b >> 4) * 10 + (b & 0x0f)) as [number, number, number, number, number, number];
  return utcDate(2000 + yy, mo, dd, hh, mi, ss);
}

export interface GpsLayout {
  /** A GPS-length byte after the date; 0 means the block stops there (no fix). */
  hasLength?: boolean;
  /** The satellites byte (low nibble) after the date; absent in the dash camera's short block. */
  satellites?: boolean;
  /** The speed byte (km/h); absent in the dash camera's short block. */
  speed?: boolean;
  /** Speed as 2 bytes, after the course word (JC400). */
  wideSpeedLast?: boolean;
}

/**
 * Date, satellites, coordinates (1/30000 minute), speed (km/h) and the course/status word. The
 * word's bit 14 says whether bit 15 carries the ACC line, which goes to `a.ignition`. Null when
 * the block holds no usable fix (a zero GPS length, an impossible date or coordinate).
 */
export function readGps(r: Reader, a: Telemetry, layout: GpsLayout = {}): Fix | null {
  const { hasLength = false, satellites: hasSatellites = true, speed: hasSpeed = true, wideSpeedLast = false } = layout;
  const time = readDate(r);
  if (hasLength && r.u8() === 0) return null;
  const satellites = hasSatellites ? r.u8() & 0x0f : undefined;
  let lat = r.u32() / 30000 / 60;
  let lng = r.u32() / 30000 / 60;
  let speed = 0;
  let flags: number;
  if (wideSpeedLast) {
    flags = r.u16();
    speed = r.u16();
  } else {
    if (hasSpeed) speed = r.u8();
    flags = r.u16();
  }
  if (flags & 0x4000) a.ignition = (flags & 0x8000) !== 0;
  if (!time || lat > 90 || lng > 180) return null;
  if (!(flags & 0x0400)) lat = -lat; // bit 10 set = north
  if (flags & 0x0800) lng = -lng; // bit 11 set = west
  const fix: Fix = { deviceTime: time, valid: (flags & 0x1000) !== 0, lat, lng, speed, heading: flags & 0x03ff };
  if (satellites !== undefined) fix.satellites = satellites;
  return fix;
}

/** A cell id sent as 8 bytes, as a number (ids past 2^53 do not occur; they read as 0). */
export function u64Number(r: Reader): number {
  const v = r.u64();
  return v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : 0;
}

/** Adds cells and access points to the attributes' network data. */
export function addNetwork(a: Telemetry, cells: CellTower[], wifi: NetworkInfo['wifiAccessPoints'] = []): void {
  const network: NetworkInfo = { ...a.network };
  if (cells.length > 0) network.cellTowers = [...(network.cellTowers ?? []), ...cells].slice(0, 32);
  if (wifi.length > 0) network.wifiAccessPoints = [...(network.wifiAccessPoints ?? []), ...wifi].slice(0, 32);
  if (network.cellTowers || network.wifiAccessPoints) a.network = network;
}

/** Text kept under io, cut to the vocabulary's limit for raw values (longer would refuse the report). */
export function ioText(text: string): string {
  return text.slice(0, 4096);
}

/** Six bytes as a MAC address, lower case with colons. */
export function readMac(r: Reader): string {
  return r.bytes(6).toString('hex').replace(/(..)(?!$)/g, '$1:');
}

/**
 * The result of a message: a position when it has a fix; else, when it located the device by the
 * network only, a position marked invalid at 0, 0 with the cells and access points under
 * attributes.network (it never moves the device; a geolocation service would resolve it, see
 * positions/geolocation.ts); else the attributes alone, which still raise their alarms.
 */
export function report(fix: Fix | null, a: Telemetry, networkTime: Date | null = null): Found {
  if (fix) {
    // The fix is this message's own: it becomes the position. A spread copy of it took V8's slow
    // path and left every later step slower: 8.3 against 5.4 µs of batch work per position.
    const position = fix as DecodedPosition;
    position.attributes = a;
    return { positions: [position] };
  }
  if (a.network && networkTime) {
    return { positions: [{ deviceTime: networkTime, valid: false, lat: 0, lng: 0, speed: 0, heading: 0, attributes: a }] };
  }
  return Object.keys(a).length > 0 ? { positions: [], attributes: a } : { positions: [], heartbeat: true };
}
