// Where a position located only by cell towers or Wi-Fi access points would be resolved to
// coordinates. The tracker calls no geolocation service: such positions are stored as not valid
// with their `network` attribute, and `noGeolocation` is the default. A service (Google, Mozilla-
// style, a local cell database) plugs in by implementing Geolocator.
import type { NetworkInfo } from './telemetry.js';

export interface Geolocator {
  /** Coordinates (degrees) and accuracy (metres) for what the device sees, or null when unknown. */
  locate(network: NetworkInfo): Promise<{ lat: number; lng: number; accuracy: number } | null>;
}

export const noGeolocation: Geolocator = {
  locate: async () => null,
};
