// Meitrack binary packets: CCC (fixed 52-byte records) and CCE (records of id/value parameters in
// four groups by value size: 1, 2 and 4 bytes, then length-prefixed). Numbers are little-endian;
// times count seconds from 2000-01-01. The unit waits for "CCC,<records>" after a CCC packet; CCE
// packets are not answered.
import { addAlarm, type CellTower, type Telemetry, type WifiAccessPoint } from '../../positions/telemetry.js';
import { TRUNCATED } from '../reader.js';
import type { DecodedPosition, DecodeResult } from '../types.js';
import { eventAlarm } from './alarms.js';
import { meitrackMessage } from './checksum.js';

const EPOCH_2000 = Date.UTC(2000, 0, 1);
const CCC_RECORD = 0x34;

/** Little-endian reads within `end`; past it the packet is truncated. */
class LeReader {
  constructor(
    readonly buf: Buffer,
    public pos: number,
    public end: number,
  ) {}
  private at(n: number): number {
    if (this.pos + n > this.end) throw TRUNCATED;
    const p = this.pos;
    this.pos += n;
    return p;
  }
  u8 = () => this.buf[this.at(1)]!;
  u16 = () => this.buf.readUInt16LE(this.at(2));
  i16 = () => this.buf.readInt16LE(this.at(2));
  u32 = () => this.buf.readUInt32LE(this.at(4));
  i32 = () => this.buf.readInt32LE(this.at(4));
  skip = (n: number) => void this.at(n);
  peek = () => this.buf[this.pos];
  /** A parameter id: one byte, or two when the first is the 0xFE extension marker. */
  id = () => (this.peek() === 0xfe ? (this.u8() << 8) | this.u8() : this.u8());
}

/** The data ends before "*XX\r\n" (or "*XX" when the line end is missing). */
function dataEnd(frame: Buffer): number {
  const crlf = frame[frame.length - 2] === 0x0d && frame[frame.length - 1] === 0x0a ? 2 : 0;
  return Math.max(0, frame.length - crlf - 3);
}

function withEvent(attributes: Telemetry, event: number): void {
  attributes.event = event;
  const alarm = eventAlarm(event);
  if (alarm) addAlarm(attributes, alarm);
}

export function decodeCcc(frame: Buffer, typeEnd: number, flag: string, imei: string): Omit<DecodeResult, 'identity'> {
  // ",<protocol version 2><remaining cache 2><count 4>" then the records.
  const r = new LeReader(frame, typeEnd + 1 + 2 + 2 + 4, dataEnd(frame));
  const positions: DecodedPosition[] = [];
  while (r.end - r.pos >= CCC_RECORD) {
    const attributes: Telemetry = { io: {} };
    withEvent(attributes, r.u8());
    const lat = r.i32() / 1e6;
    const lng = r.i32() / 1e6;
    const deviceTime = new Date(EPOCH_2000 + r.u32() * 1000);
    const valid = r.u8() === 1;
    const satellites = r.u8();
    const rssi = r.u8();
    attributes.rssi = rssi;
    const speed = r.u16();
    const heading = r.u16();
    attributes.hdop = r.u16() / 10;
    const altitude = r.u16();
    attributes.odometer = r.u32();
    attributes.engineHours = r.u32();
    const [mcc, mnc, lac, cid] = [r.u16(), r.u16(), r.u16(), r.u16()];
    if (mcc && mnc) attributes.network = { cellTowers: [{ cellId: cid, locationAreaCode: lac, mobileCountryCode: mcc, mobileNetworkCode: mnc, signalStrength: rssi }] };
    attributes.io!.status = r.u16();
    attributes.io!.adc1 = r.u16();
    attributes.battery = r.u16() / 100;
    attributes.io!.power = r.u16();
    r.skip(4); // geofence
    positions.push({ deviceTime, valid, lat, lng, speed, heading, satellites, altitude, attributes });
  }
  return { positions, reply: meitrackMessage(flag, imei, `CCC,${positions.length}`) };
}

export function decodeCce(frame: Buffer, typeEnd: number): Omit<DecodeResult, 'identity'> {
  // ",<remaining cache 4><record count 2>" then the records.
  const r = new LeReader(frame, typeEnd + 1 + 4, dataEnd(frame));
  const count = r.u16();
  const positions: DecodedPosition[] = [];
  for (let n = 0; n < count; n++) {
    const length = r.u16();
    const recordEnd = r.pos + length;
    r.skip(2); // record index
    const p: DecodedPosition = { deviceTime: new Date(0), valid: false, lat: 0, lng: 0, speed: 0, heading: 0, attributes: { io: {} } };
    const a = p.attributes;
    const io = a.io!;
    const cells: CellTower[] = [];
    const wifi: WifiAccessPoint[] = [];
    for (let k = r.u8(); k > 0; k--) {
      const id = r.id();
      const v = r.u8();
      if (id === 0x01) withEvent(a, v);
      else if (id === 0x05) p.valid = v > 0;
      else if (id === 0x06) p.satellites = v;
      else if (id === 0x07) a.rssi = v;
      else if (id === 0x14) a.output = v;
      else if (id === 0x15) a.input = v;
      else if (id === 0x47 && v > 0) io.lock = v === 2;
      else if (id === 0x97) a.throttle = v;
      else if (id === 0xfe69) a.batteryLevel = v;
      else io[`x${id.toString(16)}`] = v;
    }
    for (let k = r.u8(); k > 0; k--) {
      const id = r.id();
      const v = id === 0x0b ? r.i16() : r.u16();
      if (id === 0x08) p.speed = v;
      else if (id === 0x09) p.heading = v;
      else if (id === 0x0a) a.hdop = v / 10;
      else if (id === 0x0b) p.altitude = v;
      else if (id === 0x16) a.adc1 = v / 100;
      else if (id === 0x17) a.adc2 = v / 100;
      else if (id === 0x19) a.battery = v / 100;
      else if (id === 0x1a) a.power = v / 100;
      else if (id === 0x29) a.fuel = v / 100;
      else if (id === 0x40) withEvent(a, v);
      else if (id === 0x91 || id === 0x92) a.obdSpeed = v;
      else if (id === 0x99) a.rpm = v;
      else if (id === 0x9c) a.coolantTemp = v;
      else if (id === 0x9f) a.temp1 = v;
      else io[`x${id.toString(16)}`] = v;
    }
    for (let k = r.u8(); k > 0; k--) {
      const id = r.id();
      if (id === 0x02) p.lat = r.i32() / 1e6;
      else if (id === 0x03) p.lng = r.i32() / 1e6;
      else if (id === 0x04) p.deviceTime = new Date(EPOCH_2000 + r.u32() * 1000);
      else if (id === 0x0c) a.odometer = r.u32();
      else if (id === 0x0d) a.engineHours = r.u32();
      else if (id === 0x25) a.driverUniqueId = String(r.u32());
      else if (id === 0xa0) a.fuelUsed = r.u32() / 1000;
      else if (id === 0xfef4) a.engineHours = r.u32() * 60;
      else io[`x${id.toString(16)}`] = r.u32();
    }
    for (let k = r.u8(); k > 0; k--) {
      const id = r.id();
      const size = r.u8();
      const start = r.pos;
      if (id >= 0x1d && id <= 0x25 && size >= 8) {
        const mac = [...frame.subarray(r.pos, r.pos + 6)].map((b) => b.toString(16).padStart(2, '0')).join(':');
        r.skip(6);
        wifi.push({ macAddress: mac, signalStrength: r.i16() });
      } else if (((id >= 0x0e && id <= 0x10) || id === 0x12 || id === 0x13) && size >= 12) {
        const [mcc, mnc, lac, cid, signal] = [r.u16(), r.u16(), r.u16(), r.u32(), r.i16()];
        cells.push({ cellId: cid, locationAreaCode: lac, mobileCountryCode: mcc, mobileNetworkCode: mnc, signalStrength: signal });
      } else if (id >= 0x2a && id <= 0x31 && size >= 3) {
        r.skip(1); // sensor label
        a[`temp${id - 0x2a + 1}`] = r.i16() / 100;
      } else if (id === 0xfe31 && size > 3 && frame[r.pos] === 0x02) {
        // A camera alarm with its picture's file name ("YYYYMMDD…jpg"), kept as Traccar's path.
        io.alarmType = frame[r.pos + 1]!;
        const file = frame.toString('latin1', r.pos + 2, Math.min(r.pos + size, r.end));
        io.image = `${file.slice(0, 4)}-${file.slice(4, 6)}-${file.slice(6, 8)}/${file}`;
      } else if (id === 0xfe73 && size >= 2) {
        // A Bluetooth temperature/humidity tag: version, name, MAC, battery, temperature and humidity in 1/256.
        r.skip(1);
        const name = frame.toString('latin1', r.pos + 1, r.pos + 1 + frame[r.pos]!);
        r.skip(1 + frame[r.pos]! + 6);
        io.tagName = name;
        io.tagBattery = r.u8();
        io.tagTemp = r.i16() / 256;
        io.tagHumidity = r.i16() / 256;
      } else if (id === 0xfea8 && size >= 7) {
        // Up to three batteries: a presence byte and a level each.
        for (let b = 1; b <= 3; b++) {
          const present = r.u8() > 0;
          const level = r.u8();
          if (present && b === 1) a.batteryLevel = level;
          else if (present) io[`battery${b}Level`] = level;
        }
      }
      r.pos = start;
      r.skip(size);
    }
    r.pos = recordEnd;
    if (cells.length || wifi.length) a.network = { ...(cells.length ? { cellTowers: cells.slice(0, 32) } : {}), ...(wifi.length ? { wifiAccessPoints: wifi.slice(0, 32) } : {}) };
    if (p.deviceTime.getTime() > 0) positions.push(p);
  }
  return { positions };
}
