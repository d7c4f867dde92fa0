// What the command dispatcher needs of the devices connected to this process. The device transport
// that holds the connections (ingest) implements it and hands it over, so commands never import a
// transport.
import type { ProtocolState } from '../protocols/types.js';

/** A device connection, as far as sending it a command goes. */
export interface DeviceLink {
  protocol: string;
  /** What the decoder keeps for the connection, which some protocols' commands are addressed by (JT/T 808). */
  session?: ProtocolState;
  /**
   * Sends bytes to the device now; null for a transport whose commands travel only in the answer to
   * the device's next report (HTTP).
   */
  write: ((bytes: Buffer) => void) | null;
}

/** The devices connected to this process, by device id. */
export interface DeviceLinks {
  get(deviceId: string): DeviceLink | undefined;
  /** Called each time a device comes online here, so what waited for it is sent. */
  onOnline(listener: (deviceId: string) => void): void;
}
