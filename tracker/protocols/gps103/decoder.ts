// GPS103 (Coban GPS103/TK103-2 and their clones) decoding. Text messages:
//   imei:<imei>,<keyword>,<yymmddHHMM[ss]>,<rfid/phone>,F,<HHMMSS.sss utc>,A|V,<DDMM.MMMM>,N|S,<DDDMM.MMMM>,E|W,<knots>,<course>,<altitude>,<acc>,<door>,<fuel1>%,<fuel2>%,<temp>;
//   imei:<imei>,<keyword>,<time>,<rfid>,L,,,<lac hex>,,<cid hex>,,,;        (no fix: the serving cell)
//   imei:<imei>,OBD,<yymmddHHMMSS>,<odometer>,<fuel now>,<fuel avg>,<hours>,<speed>,<load>%,<coolant>,<throttle>%,<rpm>,<battery>,<DTCs>;
//   imei:<imei>,<name>,<event>,<sensor>,<voltage>,HHMMSS,DDMMYY,<rssi>,<fix>,<lat>,<lng>,<km/h>,<course>,<alt>,<hdop>,<sats>,<acc>,<charge>,<error>,*
//   ##,imei:<imei>,A;   (handshake, answered LOAD)     <imei>;   (heartbeat, answered ON)
// The keyword names the report (tracker, 001, acc on…) or the alarm (help me, low battery…). The
// report's own time is the unit's local time; the fix's UTC time of day corrects it.
import { addAlarm, type Alarm, type Telemetry } from '../../positions/telemetry.js';
import { KNOTS_TO_KMH, utcDate } from '../reader.js';
import type { DecodedPosition, DecodeResult, ProtocolState } from '../types.js';
import { isDigit, twoDigits } from '../text-numbers.js';
import { isTerminator } from './framer.js';

const LOAD = Buffer.from('LOAD', 'latin1');
const ON = Buffer.from('ON', 'latin1');
/** A handshake is short: "##,imei:<15 digits>,A" and the like (longer messages are reports). */
const HANDSHAKE_MAX = 30;

const ALARMS: Record<string, Alarm> = {
  'help me': 'sos',
  'low battery': 'lowBattery',
  stockade: 'geofence',
  move: 'movement',
  speed: 'overspeed',
  'door alarm': 'door',
  'ac alarm': 'powerCut',
  'accident alarm': 'accident',
  'sensor alarm': 'vibration',
  'bonnet alarm': 'bonnet',
  'footbrake alarm': 'footBrake',
  DTC: 'fault',
};

/** Keywords that only report (no event worth recording beyond the position itself). */
const PLAIN = new Set(['tracker', '']);
/** Keywords read as a value instead (the ACC line, a photo announcement "vt<packets>"). */
const NOT_EVENTS = /^(?:acc on|acc off|vt\d*)$/;

const REGULAR = new RegExp(
  [
    '^imei:(\\d+),([^,]*),',
    // local date and time (yymmdd HHMM[ss], sometimes "yy/mm/dd HH:MM"), or a placeholder
    '(?:(\\d\\d)/?(\\d\\d)/?(\\d\\d) ?(\\d\\d):?(\\d\\d)(?:\\d\\d)?|\\d*),',
    '([^,]+)?,',
    '(?:L,(?:,,([0-9A-Fa-f]+),,([0-9A-Fa-f]+),,,)?',
    '|F,(?:(\\d\\d)(\\d\\d)(\\d\\d)(?:\\.\\d+)?|(?:\\d{1,5}\\.\\d+)?),',
    '([AV]),(?:([NS]),)?(\\d+)(\\d\\d\\.\\d+),(?:([NS]),)?(?:([EW]),)?(\\d+)(\\d\\d\\.\\d+),(?:([EW])?,)?',
    '(\\d+\\.?\\d*)?(?:,(\\d+\\.?\\d*)?)?(?:,(-?\\d+\\.?\\d*)?)?(?:,([01])?)?(?:,([01])?)?',
    '(?:,(?:(\\d+\\.\\d+)%)?,(?:(\\d+\\.\\d+)%|\\d+)?)?(?:,([-+]?\\d+)?)?)',
  ].join(''),
);

const OBD = /^imei:(\d+),OBD,(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d),(\d+)?,(\d+\.\d+)?,(\d+\.\d+)?,(\d+)?,(\d+),(\d+\.?\d*)%,(?:([-+]?\d+)|[-+]?),(\d+\.?\d*)%,(\d+),(\d+\.\d+),([^;]*)/;

const ALTERNATIVE = /^imei:(\d+),[^,]+,(?:-+|(.+?)),(?:-+|(.+?)),(?:-+|(.+?)),(\d\d)(\d\d)(\d\d),(\d\d)(\d\d)(\d\d),(\d+),(\d),(-?\d+\.\d+),(-?\d+\.\d+),(\d+),(\d+),(-?\d+),(\d+\.\d+),(\d+),([01]),([01]),(?:-+|(.+?)),?$/;

/**
 * `receivedAt` times a report whose date the unit left empty; it defaults to now, the moment the
 * server decodes what just arrived.
 */
export function decodeGps103(frame: Buffer, _conn: ProtocolState, receivedAt?: Date): DecodeResult {
  const last = frame[frame.length - 1];
  // The text without its terminator.
  let text = frame.toString('latin1', 0, last !== undefined && isTerminator(last) ? frame.length - 1 : frame.length);

  if (text.length <= HANDSHAKE_MAX && text.includes('imei:')) {
    const id = /imei:(\d+),/.exec(text)?.[1];
    return { positions: [], heartbeat: true, reply: LOAD, ...(id ? { identity: id } : {}) };
  }
  let reply: Buffer | undefined;
  if (isDigit(text.charCodeAt(0))) {
    // The heartbeat is the bare IMEI; some units also put it in front of a whole report.
    reply = ON;
    const start = text.indexOf('imei:');
    if (start < 0) return { positions: [], heartbeat: true, reply, ...(/^\d{8,20}$/.test(text) ? { identity: text } : {}) };
    text = text.slice(start);
  }

  const keyword = text.slice(21, 24);
  const result =
    text.startsWith('vr', 21) ? photo(text)
    : keyword.includes('OBD') ? obd(text)
    : last === 0x2a /* '*' */ ? alternative(text)
    : regular(text, receivedAt);
  if (!result) return reply ? { positions: [], heartbeat: true, reply } : { positions: [] };
  if (reply) result.reply = reply;
  return result;
}

/** A photo arrives in hex packets after a "vt<count>" report; the product stores no media. */
function photo(text: string): DecodeResult {
  return { identity: text.slice(5, 20), positions: [], heartbeat: true };
}

const num = (v: string | undefined) => (v === undefined || v === '' ? undefined : Number(v));
/** The course, or 0 when the unit left it empty or wrote something no compass has. */
const heading = (v: string | undefined) => {
  const degrees = num(v) ?? 0;
  return degrees <= 360 ? degrees : 0;
};

function regular(text: string, receivedAt: Date | undefined): DecodeResult | null {
  const m = REGULAR.exec(text);
  if (!m) return null;
  const [, imei, keyword, yy, mo, dd, lh, lm, rfid, lac, cid, uh, um, us, validity, latHem1, latDeg, latMin, latHem2, lngHem1, lngDeg, lngMin, lngHem2, speed, course, altitude, acc, door, fuel1, fuel2, temp] = m as unknown as (string | undefined)[];
  const result: DecodeResult = { identity: imei!, positions: [] };
  const attributes = keywordAttributes(keyword!, rfid);
  if (keyword === 'help me') result.reply = Buffer.from(`**,imei:${imei},E;`, 'latin1');

  if (!validity) {
    // "L": no fix. The serving cell, when given, says where the unit is.
    if (lac && cid) attributes.network = { cellTowers: [{ locationAreaCode: parseInt(lac, 16), cellId: parseInt(cid, 16) }] };
    return withoutFix(result, attributes);
  }

  const time = reportTime(yy, mo, dd, lh, lm, uh, um, us, receivedAt);
  const lat = coordinate(latDeg!, latMin!, latHem1 ?? latHem2, 'S', 90);
  const lng = coordinate(lngDeg!, lngMin!, lngHem1 ?? lngHem2, 'W', 180);
  if (!time || lat === null || lng === null) return withoutFix(result, attributes);
  if (acc) attributes.ignition = acc === '1';
  if (door) attributes.door = door === '1';
  if (fuel1 || fuel2) {
    const io: Record<string, number> = {};
    if (fuel1) io.fuel1 = Number(fuel1);
    if (fuel2) io.fuel2 = Number(fuel2);
    attributes.io = { ...attributes.io, ...io };
  }
  if (temp) attributes.temp1 = Number(temp);
  const position: DecodedPosition = {
    deviceTime: time,
    valid: validity === 'A',
    lat,
    lng,
    speed: (num(speed) ?? 0) * KNOTS_TO_KMH,
    heading: heading(course),
    attributes,
  };
  const alt = num(altitude);
  if (alt !== undefined) position.altitude = alt;
  result.positions.push(position);
  return result;
}

/** A report without a usable fix: what it says as attributes, or only a sign of life when it says nothing. */
function withoutFix(result: DecodeResult, attributes: Telemetry): DecodeResult {
  if (Object.keys(attributes).length) result.attributes = attributes;
  else result.heartbeat = true;
  return result;
}

/** What the keyword says: an alarm, the ACC line, a temperature or fuel reading, the driver, or an event. */
function keywordAttributes(keyword: string, rfid: string | undefined): Telemetry {
  const attributes: Telemetry = {};
  if (PLAIN.has(keyword)) return attributes;
  const alarm = keyword.startsWith('T:') ? 'temperature' : keyword.startsWith('oil') ? 'fuelLeak' : ALARMS[keyword];
  if (alarm) addAlarm(attributes, alarm);
  if (keyword === 'acc on' || keyword === 'acc off') attributes.ignition = keyword === 'acc on';
  else if (keyword.startsWith('T:')) {
    const t = Number(keyword.slice(2));
    if (Number.isFinite(t)) attributes.temp1 = t;
  } else if (keyword.startsWith('oil ')) {
    const litres = Number(keyword.slice(4));
    if (Number.isFinite(litres)) attributes.fuel = litres;
  } else if (keyword === 'rfid' && rfid) attributes.driverUniqueId = rfid;
  if (!alarm && !NOT_EVENTS.test(keyword)) attributes.event = keyword.slice(0, 64);
  return attributes;
}

/**
 * The report's date and local time of day, moved to UTC by the difference between the local
 * time and the fix's UTC time of day (within ±12 h); the seconds come from the fix. Without a
 * date, the time of arrival.
 */
function reportTime(yy?: string, mo?: string, dd?: string, lh?: string, lm?: string, uh?: string, um?: string, us?: string, receivedAt?: Date): Date | null {
  if (!yy) return receivedAt ?? new Date();
  const hour = twoDigits(lh!);
  const minute = twoDigits(lm!);
  const local = utcDate(2000 + twoDigits(yy), twoDigits(mo!), twoDigits(dd!), hour, minute, us === undefined ? 0 : twoDigits(us));
  if (!local || uh === undefined) return local;
  let delta = (hour - twoDigits(uh)) * 60 + minute - twoDigits(um!);
  if (delta <= -12 * 60) delta += 24 * 60;
  else if (delta > 12 * 60) delta -= 24 * 60;
  local.setTime(local.getTime() - delta * 60_000);
  return local;
}

/** Degrees from (d)ddmm.mmmm, negative in the given hemisphere; null when out of range. */
function coordinate(deg: string, min: string, hemisphere: string | undefined, negative: string, max: number): number | null {
  const minutes = Number(min);
  const value = Number(deg) + minutes / 60;
  if (minutes >= 60 || value > max) return null;
  return hemisphere === negative ? -value : value;
}

/** OBD readings: no fix, so they come back as attributes (placed at the last position). */
function obd(text: string): DecodeResult | null {
  const m = OBD.exec(text);
  if (!m) return null;
  const [, imei, , , , , , , odometer, , fuelAvg, hours, speed, load, coolant, throttle, rpm, battery, dtcs] = m as unknown as (string | undefined)[];
  const attributes: Telemetry = {
    obdSpeed: Number(speed),
    engineLoad: Number(load),
    throttle: Number(throttle),
    rpm: Number(rpm),
    battery: Number(battery),
  };
  if (odometer) attributes.odometer = Number(odometer);
  if (hours) attributes.engineHours = Number(hours) * 3600;
  if (coolant) attributes.coolantTemp = Number(coolant);
  const io: Record<string, number | string> = {};
  if (fuelAvg) io.fuelConsumption = Number(fuelAvg);
  const codes = dtcs!.replace(/,/g, ' ').trim();
  if (codes) io.dtcs = codes;
  if (Object.keys(io).length) attributes.io = io;
  return { identity: imei!, positions: [], attributes };
}

/** The '*'-terminated format: decimal degrees and km/h. */
function alternative(text: string): DecodeResult | null {
  const m = ALTERNATIVE.exec(text);
  if (!m) return null;
  const [, imei, event, sensorId, sensorVoltage, hh, mi, ss, dd, mo, yy, rssi, fix, lat, lng, speed, course, altitude, hdop, sats, acc, charge, error] = m as unknown as (string | undefined)[];
  const time = utcDate(2000 + twoDigits(yy!), twoDigits(mo!), twoDigits(dd!), twoDigits(hh!), twoDigits(mi!), twoDigits(ss!));
  if (!time || Math.abs(Number(lat)) > 90 || Math.abs(Number(lng)) > 180) return { identity: imei!, positions: [] };
  const attributes: Telemetry = { rssi: Number(rssi), hdop: Number(hdop), ignition: acc === '1', charge: charge === '1' };
  if (event) attributes.event = event.slice(0, 64);
  const io: Record<string, number | string> = {};
  if (sensorId) io.sensorId = sensorId;
  if (sensorVoltage && Number.isFinite(Number(sensorVoltage))) io.sensorVoltage = Number(sensorVoltage);
  if (error) io.error = error;
  if (Object.keys(io).length) attributes.io = io;
  return {
    identity: imei!,
    positions: [{ deviceTime: time, valid: Number(fix) > 0, lat: Number(lat), lng: Number(lng), speed: Number(speed), heading: heading(course), altitude: Number(altitude), satellites: Number(sats), attributes }],
  };
}
