// Suntech alert and emergency codes that name one of our alarms; the rest stay as the raw code.
import type { Alarm } from '../../positions/telemetry.js';

/** ALT reports (legacy and universal) and binary 0x82 alerts. */
const ALERTS: Record<number, Alarm> = {
  1: 'overspeed',
  5: 'geofenceExit',
  6: 'geofenceEnter',
  14: 'lowBattery',
  15: 'vibration',
  16: 'accident',
  40: 'powerRestored',
  41: 'powerCut',
  42: 'sos',
  46: 'hardAcceleration',
  47: 'hardBraking',
  50: 'jamming',
  132: 'door',
};

/** EMG reports of the legacy models. */
const EMERGENCIES: Record<number, Alarm> = {
  1: 'sos',
  2: 'parking',
  3: 'powerCut',
  5: 'door',
  6: 'door',
  7: 'movement',
  8: 'vibration',
};

export const alertAlarm = (code: number): Alarm | undefined => ALERTS[code];
export const emergencyAlarm = (code: number): Alarm | undefined => EMERGENCIES[code];
