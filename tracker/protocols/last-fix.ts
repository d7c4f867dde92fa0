// The newest valid fix a connection has reported, kept in its protocol state. Messages without
// a location of their own (command responses, Codec 7 records without GPS data) are placed
// there, as not valid, so they never move the device.
import type { DecodedPosition, ProtocolState } from './types.js';

export type LastFix = Pick<DecodedPosition, 'deviceTime' | 'lat' | 'lng' | 'heading' | 'altitude'>;

const KEY = 'lastFix';

export function lastFix(conn: ProtocolState): LastFix | undefined {
  return conn.state[KEY] as LastFix | undefined;
}

/** Keeps the newest valid fix: a record without one carries whatever the unit last had, even 0/0. */
export function rememberFix(conn: ProtocolState, positions: DecodedPosition[]): void {
  for (const p of positions) {
    const known = lastFix(conn);
    // Devices send stored records newest first or oldest first.
    if (!p.valid || (known && known.deviceTime > p.deviceTime)) continue;
    conn.state[KEY] = { deviceTime: p.deviceTime, lat: p.lat, lng: p.lng, heading: p.heading, altitude: p.altitude } satisfies LastFix;
  }
}

/** A position at the last known place, not valid, for a message that carries no location. */
export function atLastFix(last: LastFix | undefined, deviceTime: Date, attributes: DecodedPosition['attributes']): DecodedPosition {
  return {
    deviceTime,
    valid: false,
    lat: last?.lat ?? 0,
    lng: last?.lng ?? 0,
    speed: 0,
    heading: last?.heading ?? 0,
    ...(last?.altitude !== undefined && { altitude: last.altitude }),
    attributes,
  };
}
