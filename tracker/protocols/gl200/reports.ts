// What a report's type says beyond its location: the alarm it raises, the ignition it reports.
import { addAlarm, type Alarm, type Telemetry } from '../../positions/telemetry.js';

/** Report types that are alarms in themselves. */
const ALARM_OF: Record<string, Alarm> = {
  SOS: 'sos',
  SPD: 'overspeed',
  TOW: 'tow',
  IDL: 'idle',
  PNA: 'powerOn',
  PFA: 'powerOff',
  EPN: 'powerRestored',
  MPN: 'powerRestored',
  EPF: 'powerCut',
  MPF: 'powerCut',
  BPL: 'lowBattery',
  STT: 'movement',
  SWG: 'geofence',
  TMP: 'temperature',
  TEM: 'temperature',
  JDR: 'jamming',
  JDS: 'jamming',
  DAR: 'fatigueDriving',
};

/** GTHBM report types: harsh braking, acceleration, cornering, per speed band. */
const HARSH: Alarm[] = ['hardBraking', 'hardAcceleration', 'hardCornering', 'hardBraking', 'hardAcceleration'];

/** Ignition reports: GTIGN/GTIGF (ignition line), GTVGN/GTVGF (virtual ignition from voltage). */
const IGNITION: Record<string, boolean> = { IGN: true, VGN: true, IGF: false, VGF: false };

/**
 * The type's own meaning. `reportType` is the sixth field: on GTHBM the harsh-driving kind, on GTIGL
 * its low digit (1: ignition on), on GTNMR the motion state (1: moving).
 */
export function typeAttributes(type: string, reportType: string | undefined, attributes: Telemetry): void {
  const alarm = ALARM_OF[type];
  if (alarm) addAlarm(attributes, alarm);
  if (type in IGNITION) attributes.ignition = IGNITION[type];
  if (type !== 'HBM' && type !== 'IGL' && type !== 'NMR') return;
  const code = reportType !== undefined && /^[0-9A-Fa-f]{1,2}$/.test(reportType) ? parseInt(reportType, 16) : undefined;
  if (code === undefined) return;
  if (type === 'HBM' && HARSH[code % 0x10]) addAlarm(attributes, HARSH[code % 0x10]!);
  if (type === 'IGL') attributes.ignition = code % 0x10 === 1;
  if (type === 'NMR') attributes.motion = code === 1;
}

/** The types extraAttributes reads anything from. */
const EXTRA_TYPES = new Set(['BAA', 'BID', 'DAR', 'DAT', 'VER']);

/**
 * Values with no vocabulary key, kept under `io` by Traccar's names: the accessory's voltage on
 * GTBAA/GTBID (after its MAC), the fatigue warning type of GTDAR, the serial data of GTDAT, and the
 * unit's versions on GTVER.
 */
export function extraAttributes(type: string, f: string[], attributes: Telemetry): void {
  if (!EXTRA_TYPES.has(type)) return;
  const io: Record<string, string | number> = {};
  if (type === 'BAA' || type === 'BID') {
    const mac = f.findIndex((v, i) => i > 4 && /^[0-9A-Fa-f]{12}$/.test(v));
    if (mac > 0 && /^\d{1,5}$/.test(f[mac + 1] ?? '')) io.accessoryVoltage = Number(f[mac + 1]) / 1000;
  }
  if (type === 'DAR' && /^\d{1,2}$/.test(f[4] ?? '')) io.warningType = Number(f[4]);
  if (type === 'DAT' && f[7]) io.data = f[7];
  if (type === 'VER' && f[4] && /^[0-9A-Fa-f]{4}$/.test(f[5] ?? '') && /^[0-9A-Fa-f]{4}$/.test(f[6] ?? '')) {
    Object.assign(io, { deviceType: f[4], versionFw: parseInt(f[5]!, 16), versionHw: parseInt(f[6]!, 16) });
  }
  if (Object.keys(io).length) attributes.io = { ...attributes.io, ...io };
}
