// H02 decoding. Text messages: *<maker>,<id>,<type>,<fields…>#, with positions in
//   *HQ,<id>,V1,HHMMSS,A|V,DDMM.MMMM,N|S,DDDMM.MMMM,E|W,<knots>,<course>,DDMMYY,<status>…#
// Binary messages ('$') carry the same data as packed BCD. The 32-bit status word is
// active-low: a cleared bit signals the condition.
import { ddmmyyHhmmss, KNOTS_TO_KMH } from '../reader.js';
import { sixDigits } from '../text-numbers.js';
import type { NetworkInfo, Telemetry } from '../../positions/telemetry.js';
import type { DecodedPosition, DecodeResult, ProtocolState } from '../types.js';

/** Types that only report link health; they carry no GPS fix. */
const HEARTBEATS = new Set(['XT', 'LINK']);
/** Types a unit waits to see echoed back (the message up to its type). */
const ECHOED = new Set(['HTBT', 'V0']);

/**
 * `receivedAt` stands in for the time of a report that has none (a cell report, a V1 with empty
 * time and date) and stamps the confirmations, which carry the server's time; it defaults to now,
 * the moment the server decodes what just arrived.
 */
export function decodeH02(frame: Buffer, _conn: ProtocolState, receivedAt = new Date()): DecodeResult {
  if (frame[0] === 0x24) return decodeBinary(frame);
  // 'X' messages (framed only to keep the stream in step) carry nothing documented.
  if (frame[0] !== 0x2a || frame[frame.length - 1] !== 0x23) return { positions: [] };
  return decodeText(frame.toString('latin1', 1, frame.length - 1), receivedAt);
}

function decodeText(body: string, receivedAt: Date): DecodeResult {
  const f = body.split(',');
  const id = f[1] ?? '';
  const type = f[2] ?? '';
  // Some firmwares leave the id empty and rely on the connection's identity.
  if (!/^\w*$/.test(id) || !type) return { positions: [] };
  const result: DecodeResult = { positions: [] };
  if (id) result.identity = id;

  if (type === 'SMS') {
    result.commandReply = f.slice(3).join(',');
    return result;
  }
  if (ECHOED.has(type)) {
    result.heartbeat = true;
    result.reply = Buffer.from(`*${f[0]},${id},${type}#`, 'latin1');
    const battery = type === 'HTBT' ? percent(f[3]) : undefined;
    if (battery !== undefined) result.attributes = { batteryLevel: battery };
    return result;
  }
  if (type === 'NBR' || type === 'V3' || (type === 'VP1' && f[3] === 'V')) {
    const report = type === 'NBR' ? nbrReport(f) : type === 'V3' ? v3Report(f) : vp1CellReport(f, receivedAt);
    if (!report) return { ...result, heartbeat: true };
    // Stored unlocated (not valid, at 0,0: what the position filters take for "no fix"). A time
    // the unit got wrong (second 69) must not lose the status: it then comes without a position.
    if (report.time) result.positions.push({ deviceTime: report.time, valid: false, lat: 0, lng: 0, speed: 0, heading: 0, attributes: report.attributes });
    else result.attributes = report.attributes;
    // NBR reports are confirmed like V1 ones; a unit without an id cannot be addressed.
    if (type === 'NBR' && id) result.reply = confirmation(id, type, receivedAt);
    return result;
  }
  if (HEARTBEATS.has(type)) {
    result.heartbeat = true;
    const attributes = linkStatus(type, f);
    if (attributes) result.attributes = attributes;
    return result;
  }
  if (!type.startsWith('V')) {
    result.heartbeat = true;
    return result;
  }

  // V4 is the answer to a server command: "V4,<command>,<parameters…>" then, on most models, the
  // position block.
  // VP1 has no time of day: "VP1,A,<lat>,N,<lng>,E,<speed>,<course>,DDMMYY"; midnight stands in.
  if (type === 'VP1') f.splice(3, 0, '000000');
  const blockStart = type === 'V4' ? findPositionBlock(f, 4) : 3;
  if (type === 'V4') result.commandReply = f.slice(3, blockStart < 0 ? f.length : blockStart).join(',');
  const position = blockStart < 0 ? null : parsePositionBlock(f, blockStart, receivedAt);
  if (position) {
    result.positions.push(position);
    if (type === 'V1' && id) result.reply = confirmation(id, type, receivedAt);
  } else if (type !== 'V4') {
    return { positions: [] };
  }
  return result;
}

/**
 * "*HQ,<id>,V4,<type>,<yyyyMMddHHmmss>#" with the server's UTC time. The manufacturer's server
 * prefix is always HQ, whatever maker code (TH, hq…) the unit puts in front of its own messages.
 */
function confirmation(id: string, type: string, at: Date): Buffer {
  return Buffer.from(`*HQ,${id},V4,${type},${utcStamp(at)}#`, 'latin1');
}

/** The last stamp made: every confirmation within one second carries the same one. */
let lastStamp = { second: NaN, text: '' };

/** yyyyMMddHHmmss in UTC. */
function utcStamp(at: Date): string {
  const second = Math.floor(at.getTime() / 1000);
  if (second !== lastStamp.second) lastStamp = { second, text: at.toISOString().replace(/\D/g, '').slice(0, 14) };
  return lastStamp.text;
}

/** A battery percentage field, or undefined when it is empty or out of range. */
function percent(value: string | undefined): number | undefined {
  const n = Number(value);
  return value && /^\d+$/.test(value) && n <= 100 ? n : undefined;
}

const isStatus = (v: string | undefined) => v !== undefined && /^[0-9A-Fa-f]{8}$/.test(v);
const isDecimal = (v: string | undefined) => v !== undefined && /^-?\d+(\.\d+)?$/.test(v);
/** A decimal field as a number; NaN for an empty or malformed one (Number('') would be 0). */
const int = (v: string | undefined) => (v !== undefined && /^-?\d+$/.test(v) ? Number(v) : NaN);

/** LINK (…,battery,steps,turnovers,DDMMYY,status): an SOS pressed without a fix still arrives. */
function linkStatus(type: string, f: string[]): Telemetry | null {
  const status = f.at(-1);
  if (f.length < 6 || !isStatus(status) || !sixDigits(f.at(-2))) return null;
  const attributes: Telemetry = {};
  applyStatus(parseInt(status!, 16), attributes);
  const battery = type === 'LINK' ? percent(f[6]) : undefined;
  if (battery !== undefined) attributes.batteryLevel = battery;
  return attributes;
}

/** What a report of the cells a unit sees says: when (null if its clock is unusable) and the cells with its status. */
interface CellReport {
  time: Date | null;
  attributes: Telemetry;
}

type CellTower = NonNullable<NetworkInfo['cellTowers']>[number];

/** Null when a cell field is not a number. */
function cellReport(time: Date | null, status: string | undefined, cellTowers: CellTower[]): CellReport | null {
  if (cellTowers.some((c) => !Object.values(c).every(Number.isInteger))) return null;
  const attributes: Telemetry = { network: { cellTowers } };
  if (status !== undefined) applyStatus(parseInt(status, 16), attributes);
  return { time, attributes };
}

/** NBR: HHMMSS,MCC,MNC,delay,count,(LAC,CID,signal)…,DDMMYY,status[,…]. */
function nbrReport(f: string[]): CellReport | null {
  let d = 8;
  while (d < f.length && !(sixDigits(f[d]) && isStatus(f[d + 1]))) d += 3;
  if (d >= f.length) return null;
  const cells: CellTower[] = [];
  for (let i = 8; i < d; i += 3) {
    cells.push({ mobileCountryCode: int(f[4]), mobileNetworkCode: int(f[5]), locationAreaCode: int(f[i]), cellId: int(f[i + 1]), signalStrength: int(f[i + 2]) });
  }
  return cellReport(messageTime(f[3], f[d]), f[d + 1], cells);
}

/** V3: HHMMSS,MCC+MNC,count,(LAC,CID,…,…)×count,battery (hex),reboots,X,DDMMYY,status. */
function v3Report(f: string[]): CellReport | null {
  const count = int(f[5]);
  const x = 6 + count * 4 + 2;
  const operator = /^(\d{3})(\d+)$/.exec(f[4] ?? '');
  if (!operator || !(count >= 0) || f[x] !== 'X' || !isStatus(f[x + 2]) || !/^[0-9A-Fa-f]{4}$/.test(f[x - 2] ?? '')) return null;
  const cells: CellTower[] = [];
  for (let i = 6; i < x - 2; i += 4) {
    cells.push({ mobileCountryCode: Number(operator[1]), mobileNetworkCode: Number(operator[2]), locationAreaCode: int(f[i]), cellId: int(f[i + 1]) });
  }
  const report = cellReport(messageTime(f[3], f[x + 1]), f[x + 2], cells);
  // The battery in the unit's own scale (no documented unit).
  if (report) report.attributes.io = { ...report.attributes.io, battery: parseInt(f[x - 2]!, 16) };
  return report;
}

/** VP1 without a fix: V,MCC,MNC,LAC,CID,signal[YLAC,CID,signal…] and no time at all. */
function vp1CellReport(f: string[], receivedAt: Date): CellReport | null {
  const cells = f
    .slice(6)
    .join(',')
    .split('Y')
    .map((cell) => cell.split(','));
  if (cells.some((c) => c.length !== 3)) return null;
  const towers = cells.map(([lac, cid, signal]) => ({ mobileCountryCode: int(f[4]), mobileNetworkCode: int(f[5]), locationAreaCode: int(lac), cellId: int(cid), signalStrength: int(signal) }));
  return cellReport(receivedAt, undefined, towers);
}

/** HHMMSS and DDMMYY as UTC, or null. */
function messageTime(time: string | undefined, date: string | undefined): Date | null {
  if (!sixDigits(time) || !sixDigits(date)) return null;
  return ddmmyyHhmmss(date!, time!);
}

function findPositionBlock(f: string[], from: number): number {
  for (let i = from; i + 1 < f.length; i++) {
    if (/^\d{6}$/.test(f[i]!) && /^[ABV]$/.test(f[i + 1]!)) return i;
  }
  return -1;
}

/** Parses time, validity, coordinates, speed, course, date and status starting at f[i]. */
function parsePositionBlock(f: string[], i: number, receivedAt: Date): DecodedPosition | null {
  const time = f[i] ?? '';
  // A/B/V, empty (invalid), or a digit (coding scheme, sent only with a fix).
  const validity = f[i + 1] ?? '';
  const lat = coordinate(f[i + 2], f[i + 3], 'N', 'S', 90);
  const lng = coordinate(f[i + 4], f[i + 5], 'E', 'W', 180);
  const speed = Number(f[i + 6]);
  const course = f[i + 7] ? Number(f[i + 7]) : 0;
  // Some models put a battery field before the date.
  let d = i + 8;
  if (!sixDigits(f[d]) && sixDigits(f[d + 1])) d += 1;
  const date = f[d] ?? '';
  if (validity !== 'A' && !/^([ABV]|\d*)$/.test(validity)) return null;
  if (lat === null || lng === null || !Number.isFinite(speed) || !Number.isFinite(course)) return null;
  // Units without a clock fix send empty time and date: the report is timed on arrival.
  const deviceTime = time === '' && date === '' ? receivedAt : messageTime(time, date);
  if (!deviceTime) return null;
  const attributes: Telemetry = {};
  // The status word follows the date, or comes after three SIM fields (IP, phone, ICCID).
  const s = isStatus(f[d + 1]) ? d + 1 : isStatus(f[d + 4]) ? d + 4 : -1;
  if (s > 0) applyStatus(parseInt(f[s]!, 16), attributes);
  const valid = validity === 'A' || /^\d+$/.test(validity);
  // Extended V1: odometer, temperature, fuel %, altitude, LAC, cell id.
  const e = s + 1;
  if (s > 0 && e + 6 <= f.length && isDecimal(f[e]) && isDecimal(f[e + 1]) && isDecimal(f[e + 2]) && isDecimal(f[e + 3])) {
    attributes.odometer = Number(f[e]);
    attributes.temp1 = Number(f[e + 1]);
    attributes.fuelLevel = Number(f[e + 2]);
    // Every position lists its keys in one order: the altitude right after the validity.
    return { deviceTime, valid, altitude: Number(f[e + 3]), lat, lng, speed: speed * KNOTS_TO_KMH, heading: course, attributes };
  }
  return { deviceTime, valid, lat, lng, speed: speed * KNOTS_TO_KMH, heading: course, attributes };
}

/** Accepts DDMM.MMMM, DDMMMMMM (implied 4 decimals) and -D-M.MMMM forms. */
function coordinate(value: string | undefined, hemi: string | undefined, pos: string, neg: string, max: number): number | null {
  if (!value || (hemi !== pos && hemi !== neg)) return null;
  let degrees: number;
  let minutes: number;
  const dashed = value[0] === '-' ? /^-(\d+)-(\d+\.\d+)$/.exec(value) : null;
  if (dashed) {
    degrees = Number(dashed[1]);
    minutes = Number(dashed[2]);
  } else if (/^\d+\.\d+$/.test(value)) {
    const dot = value.indexOf('.');
    degrees = Number(value.slice(0, Math.max(0, dot - 2)) || 0);
    minutes = Number(value.slice(Math.max(0, dot - 2)));
  } else if (/^\d{7,}$/.test(value)) {
    degrees = Number(value.slice(0, -6));
    minutes = Number(value.slice(-6)) / 10000;
  } else {
    return null;
  }
  const result = degrees + minutes / 60;
  if (minutes >= 60 || result > max) return null;
  return hemi === neg ? -result : result;
}

/** Status word alarms in the manual's priority order; bits are active-low. */
export function applyStatus(status: number, a: Telemetry): void {
  if (!(status & 0x01)) a.alarm = 'vibration';
  else if (!(status & 0x02) || !(status & 0x40000)) a.alarm = 'sos'; // bits 1, 18
  else if (!(status & 0x04)) a.alarm = 'overspeed';
  else if (!(status & 0x80000)) a.alarm = 'powerCut'; // bit 19
  a.ignition = (status & 0x400) !== 0; // bit 10
  a.io = a.io ? { ...a.io, status } : { status };
}

/** `count` BCD digits from byte `from` of a frame written as hex. */
const digitsAt = (hex: string, from: number, count: number) => hex.slice(from * 2, from * 2 + count);

/**
 * Binary report: '$', id (5 BCD bytes, or 8 holding a 15-digit IMEI in 42-byte messages),
 * HHMMSS DDMMYY, lat (4 BCD), battery, lng (4.5 BCD) + flags nibble, speed/course (3 BCD), status.
 */
function decodeBinary(frame: Buffer): DecodeResult {
  if (frame.length < 32) return { positions: [] };
  const idBytes = frame.length === 42 ? 8 : 5;
  const o = idBytes - 5; // shift of every later field
  const hex = frame.toString('hex');
  const identity = digitsAt(hex, 1, idBytes === 8 ? 15 : 10);
  const head = digitsAt(hex, 6 + o, 12 + 8);
  const lngDigits = digitsAt(hex, 17 + o, 9);
  const motion = digitsAt(hex, 22 + o, 6);
  if (!/^\d+$/.test(identity + head + lngDigits + motion)) return { positions: [] };
  const deviceTime = ddmmyyHhmmss(head.slice(6, 12), head.slice(0, 6));
  let lat = Number(head.slice(12, 14)) + Number(head.slice(14, 20)) / 10000 / 60;
  let lng = Number(lngDigits.slice(0, 3)) + Number(lngDigits.slice(3)) / 10000 / 60;
  const flags = frame[21 + o]! & 0x0f;
  if (!deviceTime || lat > 90 || lng > 180) return { identity, positions: [] };
  if (!(flags & 0x04)) lat = -lat;
  if (!(flags & 0x08)) lng = -lng;
  const attributes: Telemetry = {};
  const battery = batteryLevel(frame[16 + o]!);
  if (battery !== undefined) attributes.batteryLevel = battery;
  applyStatus(frame.readUInt32BE(25 + o), attributes);
  const position: DecodedPosition = {
    deviceTime,
    valid: (flags & 0x02) !== 0,
    lat,
    lng,
    speed: Number(motion.slice(0, 3)) * KNOTS_TO_KMH,
    heading: Number(motion.slice(3)),
    attributes,
  };
  return { identity, positions: [position] };
}

/** The battery byte is a 1..6 level on older models and a percentage on newer ones. */
function batteryLevel(value: number): number | undefined {
  if (value === 0) return undefined;
  if (value <= 3) return (value - 1) * 10;
  if (value <= 6) return (value - 1) * 20;
  if (value <= 100) return value;
  if (value >= 0xf1 && value <= 0xf6) return value - 0xf0;
  return undefined;
}
