// Battery management data of electric vehicles (TK103 BS50/BS51). BS50 is one hex block in a
// fixed little-endian layout; BS51 is "<register>:<hex>" pairs. Per-cell values have no general
// meaning and go under `io` by the names Traccar users know (battery1, batteryTemp1…).
import type { IoValue, Telemetry } from '../../positions/telemetry.js';

/** Little-endian reads that report a short buffer instead of throwing. */
class LeReader {
  private at = 0;
  constructor(private readonly buf: Buffer) {}
  get ok(): boolean {
    return this.at <= this.buf.length;
  }
  get left(): number {
    return this.buf.length - this.at;
  }
  u8(): number {
    this.at += 1;
    return this.at <= this.buf.length ? this.buf[this.at - 1]! : 0;
  }
  u16(): number {
    this.at += 2;
    return this.at <= this.buf.length ? this.buf.readUInt16LE(this.at - 2) : 0;
  }
  u32(): number {
    this.at += 4;
    return this.at <= this.buf.length ? this.buf.readUInt32LE(this.at - 4) : 0;
  }
  skip(n: number): void {
    this.at += n;
  }
}

const hex = (text: string) => (/^(?:[0-9A-Fa-f]{2})+$/.test(text) ? Buffer.from(text, 'hex') : null);

/** The attributes of a BS50/BS51 payload (the text between the type and ')'), or null when it is malformed. */
export function decodeBms(type: 'BS50' | 'BS51', payload: string): Telemetry | null {
  return type === 'BS50' ? bs50(payload) : bs51(payload);
}

function bs50(payload: string): Telemetry | null {
  const buf = hex(payload);
  if (!buf) return null;
  const r = new LeReader(buf);
  const io: Record<string, IoValue> = {};
  r.skip(3);
  const cells = r.u8();
  for (let i = 1; i <= 24; i++) {
    const millivolts = r.u16();
    if (i <= cells) io[`battery${i}`] = millivolts / 1000;
  }
  const attributes: Telemetry = { charge: r.u8() === 0 };
  io.current = r.u16() / 10;
  attributes.battery = r.u16() / 100;
  attributes.batteryLevel = r.u8();
  io.batteryOverheat = r.u8() > 0;
  io.chargeProtection = r.u8() > 0;
  io.dischargeProtection = r.u8() > 0;
  r.skip(2);
  io.cycles = r.u16();
  io.faultAlarm = r.u8();
  r.skip(6);
  const temperatures = r.u8();
  io.powerTemp = r.u8() - 40;
  io.equilibriumTemp = r.u8() - 40;
  for (let i = 1; i <= 7; i++) {
    const t = r.u8() - 40;
    if (i <= temperatures) io[`batteryTemp${i}`] = t;
  }
  io.calibrationCapacity = r.u16() / 100;
  io.dischargeCapacity = r.u32();
  if (!r.ok) return null;
  attributes.io = io;
  return attributes;
}

function bs51(payload: string): Telemetry | null {
  const io: Record<string, IoValue> = {};
  for (const pair of payload.split(',')) {
    const [register, value] = pair.split(':');
    const buf = hex(value ?? '');
    if (!register || !buf) continue;
    const r = new LeReader(buf);
    const values: Record<string, IoValue> = {};
    switch (parseInt(register, 16)) {
      case 0x90:
        values.cumulativeVoltage = r.u16() / 10;
        values.gatherVoltage = r.u16() / 10;
        values.current = (r.u16() - 30000) / 10;
        values.soc = r.u16() / 10;
        break;
      case 0x91:
        values.maxCellVoltage = r.u16() / 1000;
        values.maxCellVoltageCount = r.u8();
        values.minCellVoltage = r.u16() / 1000;
        values.minCellVoltageCount = r.u8();
        break;
      case 0x92:
        values.maxTemp = r.u8() - 40;
        values.maxTempCount = r.u8();
        values.minTemp = r.u8() - 40;
        values.minTempCount = r.u8();
        break;
      case 0x96:
        // A frame number, then one temperature per cell.
        r.skip(1);
        for (let i = 1; r.left > 0; i++) values[`cellTemp${i}`] = r.u8() - 40;
        break;
    }
    // A register shorter than its layout is dropped rather than read as zeros.
    if (r.ok) Object.assign(io, values);
  }
  return Object.keys(io).length ? { io } : null;
}
