// Meitrack event codes that name one of our alarms; every code is also kept as `event`.
import type { Alarm } from '../../positions/telemetry.js';

const ALARMS: Record<number, Alarm> = {
  1: 'sos',
  17: 'lowBattery',
  18: 'lowPower',
  19: 'overspeed',
  20: 'geofenceEnter',
  21: 'geofenceExit',
  22: 'powerRestored',
  23: 'powerCut',
  36: 'tow',
  44: 'jamming',
  78: 'accident',
  90: 'hardCornering',
  91: 'hardCornering',
  129: 'hardBraking',
  130: 'hardAcceleration',
  135: 'fatigueDriving',
};

export const eventAlarm = (event: number): Alarm | undefined => ALARMS[event];
