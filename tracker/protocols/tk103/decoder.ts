// TK103 decoding. Classic frames: "(<12-character id><type><data><location>)" with the location
//   YYMMDD A|V DDMM.MMMM N|S DDDMM.MMMM E|W <km/h, 5> HHMMSS <course, 6> <io flags, 8> L<odometer hex>
// (BP00 handshake, BP05 login, BR00 report, BO01 alarm, BQ81 alarm, BP04 answer to AP00…).
// Comma-separated firmwares: "(<imei>,<type>,DDMMYY,A|V,DDMM.MMMMN,DDDMM.MMMME,<km/h>,HHMMSS,<course>,…)"
// (ZC and DW types). Besides positions: cell lists (BP05/BZ00), battery (ZC20), Wi-Fi and cells
// (DW5x), command answers (ZC03), the VIN (BV00) and battery management data (BS50/BS51).
import { addAlarm, type Alarm, type CellTower, type Telemetry, type WifiAccessPoint } from '../../positions/telemetry.js';
import { utcDate } from '../reader.js';
import { decimal, hexDigit, hexValue, toNumber, twoDigits } from '../text-numbers.js';
import type { DecodeResult, ProtocolState } from '../types.js';
import { decodeBms } from './bms.js';

/** Classic frame head: an id of 11 to 15 characters (12 in the manual), then the type (BR00). */
const CLASSIC_HEAD = /^\((\w{11,15}?)([A-Z]{2}\d\d)/;
/** Comma-separated frame head: "(<id>,<type>,". */
const COMMA_HEAD = /^\(([^,()]+),(\w{4}),/;

const LOCATION = new RegExp(
  [
    '^(.*?),?(\\d{6}),?([AV]),?',
    ' *(\\d*)(\\d\\d\\.\\d+)([NS]),? *(\\d*)(\\d\\d\\.\\d+)([EW]),?',
    '([ \\d.]{1,5})(?:\\d*,)?(\\d{6}),?',
    '(?:(?:([ \\d.]{6})|\\d\\d),?([01]{2}[0-9A-Fa-f]{6})L([0-9A-Fa-f]+)|(\\d+\\.\\d+))',
    '.*?([+-]\\d{3}\\.\\d)?\\)?$',
  ].join(''),
  's',
);

const CELLS = /^\((\w{12})\w{4}(?:\d{15})?,((?:\{\d+,\d+,\d+,\d+\}\n?)+),([0-9A-Fa-f]{8})\)$/;
const NETWORK = /^\((\w{12})BZ00,(\d+),(\d+),([0-9A-Fa-f]+),([0-9A-Fa-f]+),/;
const BATTERY = /^\((\d+),ZC20,(\d\d)(\d\d)(\d\d),(\d\d)(\d\d)(\d\d),(\d+),(\d+),(\d+),\d+/;
const LBS_WIFI = /^\((\d+),(\w{4}),(\d+),(\d+),(\d+),(\d+),(\d+),((?:(?:[0-9A-Fa-f]{2}:){5}[0-9A-Fa-f]{2}\*[-+]?\d+\*\d+,)*)(\d\d)(\d\d)(\d\d),(\d\d)(\d\d)(\d\d)/;
const COMMAND_RESULT = /^\((\d+),\w{4},(\d\d)(\d\d)(\d\d),(\d\d)(\d\d)(\d\d),\$([\s\S]*?)(?:\$|$)/;
const VIN = /^\((\w+)BV00(.{17})\)$/;

/** BO01: the alarm digit that follows the type. */
const BO01: Record<string, Alarm> = { '1': 'accident', '2': 'sos', '3': 'vibration', '4': 'lowspeed', '5': 'overspeed', '6': 'geofenceExit' };
/** BQ81 ",ALARM,<n>,…": the alarm number. */
const BQ81: Record<string, Alarm> = { '0': 'lowBattery', '1': 'overspeed', '2': 'idle', '3': 'hardAcceleration', '4': 'hardBraking', '5': 'temperature' };
/** The comma-separated firmwares' event types (ZC on some, DW3x/DW5x on others). */
const EVENTS: Record<string, Alarm | 'accOn' | 'accOff'> = {};
for (const [codes, meaning] of [
  ['ZC11 DW31 DW51', 'movement'],
  ['ZC12 DW32 DW52', 'lowBattery'],
  ['ZC13 DW33 DW53', 'powerCut'],
  ['ZC15 DW35 DW55 ZC29 DW42 DW62', 'accOn'],
  ['ZC16 DW36 DW56', 'accOff'],
  ['ZC17 DW37 DW57', 'removing'],
  ['ZC25 DW3E DW5E', 'sos'],
  ['ZC26 DW3F DW5F', 'tampering'],
  ['ZC27 DW40 DW60', 'lowPower'],
] as const) {
  for (const code of codes.split(' ')) EVENTS[code] = meaning;
}

/** ZC20 battery level steps, as percentages. */
const BATTERY_LEVELS: Record<string, number> = { '6': 100, '5': 80, '4': 50, '3': 20, '2': 10 };

export function decodeTk103(frame: Buffer, _conn: ProtocolState): DecodeResult {
  const text = frame.toString('latin1');
  const classic = CLASSIC_HEAD.exec(text);
  const comma = classic ? null : COMMA_HEAD.exec(text);
  const id = classic?.[1] ?? comma?.[1];
  const type = classic?.[2] ?? comma?.[2];
  if (!id || !type) return { positions: [] };
  const result: DecodeResult = { identity: id, positions: [] };

  if (classic && type === 'BP00') return { ...result, heartbeat: true, reply: Buffer.from(`(${id}AP01HSO)`, 'latin1') };
  if (classic && type === 'BP05') result.reply = Buffer.from(`(${id}AP05)`, 'latin1');

  const attributes = text.includes('{') && text.includes('}') ? cells(text)
    : type === 'ZC20' ? battery(text)
    : type === 'BZ00' ? network(text)
    : type === 'BV00' ? vin(text)
    : type === 'BS50' || type === 'BS51' ? decodeBms(type, text.slice(1 + id.length + 4, -1))
    : undefined;
  if (attributes !== undefined) return attributes ? { ...result, attributes } : { ...result, heartbeat: true };
  if (type === 'ZC03') return commandResult(text, result);
  if (type.startsWith('DW5')) return lbsWifi(text, type, result);

  location(text.slice(classic ? classic[0].length : comma![0].length), type, !!comma, result);
  // The answer to AP00 (locate) is the position itself.
  if (type === 'BP04' && result.positions.length) result.commandReply = 'BP04';
  if (!result.positions.length && !result.attributes) result.heartbeat = true;
  return result;
}

/** What the message type (and the data after it) says: an alarm or the ACC line. */
function typeAttributes(type: string, data: string): Telemetry {
  const attributes: Telemetry = {};
  let alarm: Alarm | undefined;
  if (type === 'BO01') alarm = BO01[data.charAt(0)];
  else if (type === 'BQ81') alarm = BQ81[/ALARM,(\d),/.exec(data)?.[1] ?? ''];
  const event = EVENTS[type];
  if (event === 'accOn' || event === 'accOff') attributes.ignition = event === 'accOn';
  else if (event) alarm = event;
  if (alarm) addAlarm(attributes, alarm);
  return attributes;
}

/** Degrees from the degree digits and minutes, negative in the given hemisphere; null when out of range. */
function degrees(deg: string, min: string, hemisphere: string, negative: string, max: number): number | null {
  const minutes = decimal(min)!;
  const value = (deg ? decimal(deg)! : 0) + minutes / 60;
  if (minutes >= 60 || value > max) return null;
  return hemisphere === negative ? -value : value;
}

function location(body: string, type: string, comma: boolean, result: DecodeResult): void {
  const m = LOCATION.exec(body);
  if (!m) return;
  const [, data, date, validity, latDeg, latMin, latHem, lngDeg, lngMin, lngHem, speed, clock, course6, status, odometer, course, temp] = m as unknown as (string | undefined)[];
  const attributes = typeAttributes(type, data!);
  // Classic frames write the date YYMMDD, the comma-separated ones DDMMYY.
  const time = utcDate(2000 + twoDigits(date!, comma ? 4 : 0), twoDigits(date!, 2), twoDigits(date!, comma ? 0 : 4), twoDigits(clock!), twoDigits(clock!, 2), twoDigits(clock!, 4));
  const lat = degrees(latDeg!, latMin!, latHem!, 'S', 90);
  const lng = degrees(lngDeg!, lngMin!, lngHem!, 'W', 180);
  if (status !== undefined) {
    // The charge (0: charging) and ACC digits, three hex digits of io flags, three of fuel.
    attributes.charge = status[0] === '0';
    attributes.ignition = status[1] === '1';
    const flags1 = hexDigit(status.charCodeAt(2));
    const flags2 = hexDigit(status.charCodeAt(3));
    attributes.in2 = (flags1 & 1) !== 0;
    attributes.out2 = (flags1 & 4) !== 0;
    if (flags1 & 8) attributes.blocked = true;
    if (flags2 & 8) attributes.door = true;
    // The panic line's level is kept raw: the unit raises SOS itself with a BO01 alarm.
    attributes.io = { flags: status.slice(2, 5), panic: (flags1 & 2) !== 0, fuel: hexValue(status, 5)! };
    attributes.odometer = hexValue(odometer!)!;
  }
  if (temp) attributes.temp1 = toNumber(temp);
  const kmhText = speed!.trim();
  const kmh = kmhText ? toNumber(kmhText) : NaN;
  if (!time || lat === null || lng === null || !Number.isFinite(kmh)) {
    if (Object.keys(attributes).length) result.attributes = attributes;
    return;
  }
  const courseText = course6 ?? course;
  const heading = courseText === undefined ? NaN : toNumber(courseText);
  result.positions.push({
    deviceTime: time,
    valid: validity === 'A',
    lat,
    lng,
    speed: kmh,
    heading: Number.isFinite(heading) && heading <= 360 ? heading : 0,
    attributes,
  });
}

/** "{mcc,mnc,lac,cid}" lines and the odometer (hex metres). */
function cells(text: string): Telemetry | null {
  const m = CELLS.exec(text);
  if (!m) return null;
  const cellTowers: CellTower[] = m[2]!
    .split('\n')
    .filter(Boolean)
    .slice(0, 32)
    .map((cell) => {
      const [mcc, mnc, lac, cid] = cell.slice(1, -1).split(',').map(Number);
      return { mobileCountryCode: mcc!, mobileNetworkCode: mnc!, locationAreaCode: lac!, cellId: cid! };
    });
  return { network: { cellTowers }, odometer: parseInt(m[3]!, 16) };
}

/** BZ00: the serving cell, area and cell id in hex. */
function network(text: string): Telemetry | null {
  const m = NETWORK.exec(text);
  if (!m) return null;
  return { network: { cellTowers: [{ mobileCountryCode: Number(m[2]), mobileNetworkCode: Number(m[3]), locationAreaCode: parseInt(m[4]!, 16), cellId: parseInt(m[5]!, 16) }] } };
}

/** ZC20: battery level step (255: unknown), battery centivolts and power decivolts (65535: unknown). */
function battery(text: string): Telemetry | null {
  const m = BATTERY.exec(text);
  if (!m) return null;
  const attributes: Telemetry = {};
  const level = BATTERY_LEVELS[m[8]!];
  if (level !== undefined) attributes.batteryLevel = level;
  if (m[9] !== '65535') attributes.battery = Number(m[9]) / 100;
  if (m[10] !== '65535') attributes.power = Number(m[10]) / 10;
  return attributes;
}

function vin(text: string): Telemetry | null {
  const m = VIN.exec(text);
  return m ? { vin: m[2]! } : null;
}

/** ZC03: a command's answer, the unit's text between '$' signs. */
function commandResult(text: string, result: DecodeResult): DecodeResult {
  const m = COMMAND_RESULT.exec(text);
  if (!m) return { ...result, heartbeat: true };
  const reply = m[8]!.trim();
  return { ...result, commandReply: reply, attributes: { result: reply.slice(0, 256) } };
}

/**
 * DW5x: the serving cell and the Wi-Fi access points the unit sees, timed. Stored unlocated (not
 * valid, at 0, 0) with the network, as other cell reports.
 */
function lbsWifi(text: string, type: string, result: DecodeResult): DecodeResult {
  const m = LBS_WIFI.exec(text);
  if (!m) return { ...result, heartbeat: true };
  const [, , , mcc, mnc, lac, cid, count, macs, dd, mo, yy, hh, mi, ss] = m as unknown as string[];
  const attributes = typeAttributes(type, '');
  const wifiAccessPoints: WifiAccessPoint[] = [];
  const entries = macs!.split(',').filter(Boolean);
  if (entries.length === Number(count)) {
    for (const entry of entries.slice(0, 32)) {
      const [mac, signal, channel] = entry.split('*');
      wifiAccessPoints.push({ macAddress: mac!.toLowerCase(), signalStrength: Number(signal), channel: Number(channel) });
    }
  }
  attributes.network = { cellTowers: [{ mobileCountryCode: Number(mcc), mobileNetworkCode: Number(mnc), locationAreaCode: Number(lac), cellId: Number(cid) }] };
  if (wifiAccessPoints.length) attributes.network.wifiAccessPoints = wifiAccessPoints;
  const time = utcDate(2000 + Number(yy), Number(mo), Number(dd), Number(hh), Number(mi), Number(ss));
  if (time) result.positions.push({ deviceTime: time, valid: false, lat: 0, lng: 0, speed: 0, heading: 0, attributes });
  else result.attributes = attributes;
  return result;
}
