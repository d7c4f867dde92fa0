// TK103 decoding per message type, frames from the simulator's builders and the documented
// layouts: values in our units, the handshake and login answers, framing around free text, and
// the command encodings.
import { describe, expect, it } from '@jest/globals';
import { encodeCommand } from '../../../tracker/protocols/registry.js';
import { tk103 } from '../../../tracker/protocols/tk103/index.js';
import { tk103Alarm, tk103Handshake, tk103LocateReply, tk103Login, tk103Position } from '../../../tracker/simulator/frames/tk103.js';

const ID = '013912345678';
const IMEI = '359710012345678';
const fix = { time: new Date('2024-03-04T05:06:07Z'), lat: 41.2266, lng: -8.6812, speed: 63.5, heading: 271.25 };
const decode = (frame: Buffer | string) => tk103.decode(typeof frame === 'string' ? Buffer.from(frame, 'latin1') : frame, { state: {} });

describe('TK103 decoder', () => {
  it('answers the BP00 handshake (<id>AP01HSO)', () => {
    expect(decode(tk103Handshake(ID))).toEqual({ identity: ID, positions: [], heartbeat: true, reply: Buffer.from(`(${ID}AP01HSO)`) });
  });

  it('answers the BP05 login (<id>AP05) and stores its position', () => {
    const r = decode(tk103Login(ID, IMEI, fix));
    expect(r.identity).toBe(ID);
    expect(r.reply?.toString()).toBe(`(${ID}AP05)`);
    expect(r.positions).toHaveLength(1);
  });

  it('reads a BR00 report in our units, unanswered', () => {
    const r = decode(tk103Position(ID, fix, { ignition: true }));
    expect(r.reply).toBeUndefined();
    const p = r.positions[0]!;
    expect(p).toMatchObject({ deviceTime: fix.time, valid: true, speed: 63.5, heading: 271.25 });
    expect(p.lat).toBeCloseTo(fix.lat, 5);
    expect(p.lng).toBeCloseTo(fix.lng, 5);
    expect(p.attributes).toEqual({ charge: true, ignition: true, in2: false, out2: false, odometer: 0, io: { flags: '000', panic: false, fuel: 0 } });
  });

  it('reads the io flags, the odometer and the temperature', () => {
    const r = decode(`(${ID}BR00240304A4113.5960N00840.8720W063.5050607271.2510B9A07FL0001E240+021.5)`);
    expect(r.positions[0]!.attributes).toEqual({ charge: false, ignition: false, in2: true, out2: false, blocked: true, door: true, odometer: 0x1e240, temp1: 21.5, io: { flags: 'B9A', panic: true, fuel: 0x07f } });
  });

  it('raises BO01 and BQ81 alarms', () => {
    expect(decode(tk103Alarm(ID, fix, 'sos')).positions[0]!.attributes.alarm).toBe('sos');
    expect(decode(tk103Alarm(ID, fix, 'overspeed')).positions[0]!.attributes.alarm).toBe('overspeed');
    const bq81 = `(${ID}BQ81,ALARM,4,87,240304A4113.5960N00840.8720W063.5050607271.25,00000000)`;
    expect(decode(bq81).positions[0]!.attributes.alarm).toBe('hardBraking');
  });

  it('reads the comma-separated firmwares (date DDMMYY) and their event types', () => {
    const frame = (type: string) => `(${IMEI},${type},040324,A,4113.59600N,00840.87200W,63.5,050607,271.25,104.0,9)`;
    const r = decode(frame('DW30'));
    expect(r.identity).toBe(IMEI);
    expect(r.positions[0]).toMatchObject({ deviceTime: fix.time, valid: true, speed: 63.5, heading: 271.25 });
    expect(r.positions[0]!.lat).toBeCloseTo(fix.lat, 5);
    expect(decode(frame('ZC11')).positions[0]!.attributes.alarm).toBe('movement');
    expect(decode(frame('ZC13')).positions[0]!.attributes.alarm).toBe('powerCut');
    expect(decode(frame('DW3E')).positions[0]!.attributes.alarm).toBe('sos');
    expect(decode(frame('ZC15')).positions[0]!.attributes).toEqual({ ignition: true });
  });

  it('takes the BP04 answer to AP00 as the command reply with its position', () => {
    const r = decode(tk103LocateReply(ID, fix));
    expect(r.commandReply).toBe('BP04');
    expect(r.positions).toHaveLength(1);
  });

  it('gives battery, cells, VIN and command answers back without a position', () => {
    expect(decode(`(${IMEI},ZC20,040324,050607,5,398,125,1)`)).toEqual({ identity: IMEI, positions: [], attributes: { batteryLevel: 80, battery: 3.98, power: 12.5 } });
    expect(decode(`(${IMEI},ZC20,040324,050607,255,65535,65535,1)`).attributes).toEqual({});
    expect(decode(`(${ID}BZ00,268,1,1a2b,3c4d,1a2b,3c4e,01000000)`).attributes).toEqual({ network: { cellTowers: [{ mobileCountryCode: 268, mobileNetworkCode: 1, locationAreaCode: 0x1a2b, cellId: 0x3c4d }] } });
    expect(decode(`(${ID}BP05${IMEI},{268,1,6699,15437}\n{268,1,6699,15438}\n,0000ABCD)`)).toEqual({
      identity: ID,
      positions: [],
      reply: Buffer.from(`(${ID}AP05)`),
      attributes: {
        odometer: 0xabcd,
        network: { cellTowers: [{ mobileCountryCode: 268, mobileNetworkCode: 1, locationAreaCode: 6699, cellId: 15437 }, { mobileCountryCode: 268, mobileNetworkCode: 1, locationAreaCode: 6699, cellId: 15438 }] },
      },
    });
    expect(decode(`(${ID}BV00WVWZZZ1KZ6W123456)`).attributes).toEqual({ vin: 'WVWZZZ1KZ6W123456' });
    const answer = decode(`(${IMEI},ZC03,040324,050607,$Interval set (60 s)$)`);
    expect(answer.commandReply).toBe('Interval set (60 s)');
    expect(answer.attributes).toEqual({ result: 'Interval set (60 s)' });
  });

  it('stores a DW5x Wi-Fi and cell report unlocated with its network', () => {
    const r = decode(`(${IMEI},DW51,268,1,6699,15437,2,a0:b1:c2:d3:e4:f5*-61*6,A0:B1:C2:D3:E4:F6*-75*11,040324,050607)`);
    expect(r.positions).toEqual([
      {
        deviceTime: fix.time,
        valid: false,
        lat: 0,
        lng: 0,
        speed: 0,
        heading: 0,
        attributes: {
          alarm: 'movement',
          network: {
            cellTowers: [{ mobileCountryCode: 268, mobileNetworkCode: 1, locationAreaCode: 6699, cellId: 15437 }],
            wifiAccessPoints: [
              { macAddress: 'a0:b1:c2:d3:e4:f5', signalStrength: -61, channel: 6 },
              { macAddress: 'a0:b1:c2:d3:e4:f6', signalStrength: -75, channel: 11 },
            ],
          },
        },
      },
    ]);
  });

  it('reads battery management data under io', () => {
    const r = decode(`(${ID}BS51,90:F401E0019475E803,92:4201400A)`);
    expect(r.attributes).toEqual({ io: { cumulativeVoltage: 50, gatherVoltage: 48, current: 10, soc: 100, maxTemp: 26, maxTempCount: 1, minTemp: 24, minTempCount: 10 } });
  });
});

describe('TK103 framer', () => {
  it("does not close a frame on a ')' inside the unit's $-quoted text", () => {
    const answer = Buffer.from(`(${IMEI},ZC03,040324,050607,$Reply (ok)$)`);
    const next = tk103Position(ID, fix);
    const framer = tk103.createFramer(4096);
    expect(framer.push(Buffer.concat([Buffer.from('\r\nnoise)'), answer, next]))).toEqual([answer, next]);
    expect(framer.skipped).toBe('noise)'.length);
  });
});

describe('TK103 commands', () => {
  const cmd = (type: Parameters<typeof encodeCommand>[1], params = {}) => encodeCommand('tk103', type, 1, { identity: ID, ...params })?.toString('latin1');

  it('encodes each command as (<id><code>)', () => {
    expect(cmd('locate')).toBe(`(${ID}AP00)`);
    expect(cmd('engineStop')).toBe(`(${ID}AV010)`);
    expect(cmd('engineResume')).toBe(`(${ID}AV011)`);
    expect(cmd('reboot')).toBe(`(${ID}AT00)`);
    expect(cmd('setInterval', { seconds: 60 })).toBe(`(${ID}AR00003C0000)`);
    expect(cmd('custom', { text: 'AP07' })).toBe(`(${ID}AP07)`);
  });

  it('refuses to encode a command without the id to name', () => {
    expect(() => encodeCommand('tk103', 'locate', 1, {})).toThrow(/id/);
  });
});
