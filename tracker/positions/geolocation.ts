// Where a position would be resolved from the cell towers and Wi-Fi access points a unit reports
// without a fix (attributes.network). The tracker calls no geolocation service: such reports are
// stored unlocated (valid: false). A deployment that wants them located implements this interface
// against its service (Google, Mozilla-compatible, Unwired Labs) and hands it to ingest.
import type { NetworkInfo } from './telemetry.js';

export interface Geolocator {
  /** The network's location with its accuracy radius in metres, or null when it cannot be told. */
  locate(network: NetworkInfo): Promise<{ lat: number; lng: number; accuracy: number } | null>;
}

/** The default: nothing is located. */
export const noGeolocation: Geolocator = { locate: async () => null };
