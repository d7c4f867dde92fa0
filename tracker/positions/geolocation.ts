// Where an LBS or Wi-Fi report would become coordinates. Such reports are stored as invalid
// positions with the cells and access points under attributes.network; no geolocation service is
// called today. A service (Google, Mozilla-compatible, OpenCellID…) plugs in here.
import type { NetworkInfo } from './telemetry.js';

export interface Geolocator {
  /** The position the network data resolves to, or null when it does not resolve. */
  locate(network: NetworkInfo): Promise<{ lat: number; lng: number; accuracy: number } | null>;
}

/** The default: nothing is resolved, so network-only positions stay invalid. */
export const noGeolocation: Geolocator = {
  locate: async () => null,
};
