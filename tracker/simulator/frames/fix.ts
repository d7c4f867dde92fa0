// What a simulated device knows when it builds a report. Builders convert it to each
// protocol's wire units (knots, 1/30000 minute, 1e-7 degrees, BCD…).

export interface DeviceFix {
  time: Date;
  lat: number;
  lng: number;
  /** km/h. */
  speed: number;
  /** Degrees clockwise from north. */
  heading: number;
  valid?: boolean;
  altitude?: number;
  satellites?: number;
}

export type DeviceAlarm = 'sos' | 'powerCut' | 'vibration' | 'overspeed' | 'lowBattery';

/** Device-side state reported alongside a fix. */
export interface DeviceState {
  ignition?: boolean;
  /** Fuel level, percent. */
  fuelLevel?: number;
  /** External power, volts. */
  power?: number;
  /** Internal battery, percent. */
  batteryLevel?: number;
  alarm?: DeviceAlarm;
}

export const KMH_PER_KNOT = 1.852;
