import { describe, expect, it } from '@jest/globals';
import { meitrackChecksum } from '../../../tracker/protocols/meitrack/checksum.js';
import { meitrack } from '../../../tracker/protocols/meitrack/index.js';
import { PROTOCOLS } from '../../../tracker/protocols/registry.js';
import { protocolState } from './helpers.js';

const IMEI = '861234567890123';

/** A device message as Meitrack documents it: "$$<flag><length>,<body>*<checksum>\r\n". */
function message(flag: string, body: string): Buffer {
  const head = `$$${flag}${body.length + 6},${body}*`;
  return Buffer.from(`${head}${meitrackChecksum(Buffer.from(head, 'latin1'))}\r\n`, 'latin1');
}

const report = (event: number, extra = '') =>
  message('Q', `${IMEI},AAA,${event},-23.550520,-46.633310,240311091530,A,9,21,52,181,0.9,760,123456,3600,724|5|1F2E|0001A2B3,0401,0000|0000|0000|0191|0573,${extra},,3`);

describe('Meitrack reports', () => {
  it('AAA: the fix, cell, inputs and voltages in our units; no answer', () => {
    const r = meitrack.decode(report(35), protocolState());
    expect(r.identity).toBe(IMEI);
    expect(r.badChecksum).toBe(false);
    const p = r.positions[0]!;
    expect(p.deviceTime.toISOString()).toBe('2024-03-11T09:15:30.000Z');
    expect([p.valid, p.lat, p.lng, p.speed, p.heading, p.satellites, p.altitude]).toEqual([true, -23.55052, -46.63331, 52, 181, 9, 760]);
    expect(p.attributes).toMatchObject({ event: 35, hdop: 0.9, odometer: 123456, engineHours: 3600, input: 4, output: 1, battery: 4.01, power: 13.95 });
    expect(p.attributes.network?.cellTowers?.[0]).toEqual({ cellId: 0x1a2b3, locationAreaCode: 0x1f2e, mobileCountryCode: 724, mobileNetworkCode: 5, signalStrength: 21 });
    expect(r.reply).toBeUndefined();
  });

  it('event 1 is an SOS; event 37 carries the driver id', () => {
    expect(meitrack.decode(report(1), protocolState()).positions[0]!.attributes.alarm).toBe('sos');
    expect(meitrack.decode(report(37, 'A1B2C3'), protocolState()).positions[0]!.attributes.driverUniqueId).toBe('A1B2C3');
  });

  it('a wrong checksum is flagged, the report still decoded', () => {
    const bad = report(35);
    bad[bad.length - 3] = bad[bad.length - 3] === 0x30 ? 0x31 : 0x30;
    const r = meitrack.decode(bad, protocolState());
    expect(r.badChecksum).toBe(true);
    expect(r.positions).toHaveLength(1);
  });

  it('AAC is answered "@@z27,<imei>,AAC,1*<sum>\\r\\n"', () => {
    const r = meitrack.decode(message('z', `${IMEI},AAC,1`), protocolState());
    const head = `@@z27,${IMEI},AAC,1*`;
    expect(r.reply!.toString('latin1')).toBe(`${head}${meitrackChecksum(Buffer.from(head))}\r\n`);
    expect(r.positions).toEqual([]);
  });

  it('a command answer is the command reply', () => {
    expect(meitrack.decode(message('A', `${IMEI},C01,OK`), protocolState()).commandReply).toBe('C01,OK');
  });
});

describe('Meitrack framing', () => {
  const stream = Buffer.concat([report(35), message('z', `${IMEI},AAC,1`)]);

  it('frames cut at every byte and merged in one read come out whole', () => {
    for (let cut = 1; cut < stream.length; cut++) {
      const framer = meitrack.createFramer(65536);
      const frames = [...framer.push(stream.subarray(0, cut)), ...framer.push(stream.subarray(cut))];
      expect(Buffer.concat(frames).equals(stream)).toBe(true);
      expect(frames).toHaveLength(2);
    }
  });

  it('garbage before a frame is skipped and counted', () => {
    const framer = meitrack.createFramer(65536);
    expect(framer.push(Buffer.concat([Buffer.from('xx$'), report(35)]))).toHaveLength(1);
    expect(framer.skipped).toBe(3);
  });
});

describe('Meitrack commands', () => {
  const cmd = (type: 'locate' | 'engineStop' | 'engineResume' | 'reboot' | 'setInterval' | 'custom', params = {}) =>
    meitrack.commands[type]!(1, { identity: IMEI, ...params }).toString('latin1');
  const framed = (content: string) => {
    const head = `@@A${1 + IMEI.length + 1 + content.length + 5},${IMEI},${content}*`;
    return `${head}${meitrackChecksum(Buffer.from(head))}\r\n`;
  };

  it('each command names the unit and carries its checksum', () => {
    expect(cmd('locate')).toBe(framed('A10'));
    expect(cmd('engineStop')).toBe(framed('C01,0,12222'));
    expect(cmd('engineResume')).toBe(framed('C01,0,02222'));
    expect(cmd('reboot')).toBe(framed('F02'));
    expect(cmd('setInterval', { seconds: 30 })).toBe(framed('A12,3'));
    expect(cmd('custom', { text: 'B21,1' })).toBe(framed('B21,1'));
  });
});

describe('Meitrack autodetect', () => {
  // H02's detector takes any '$' (its binary messages); Meitrack is asked first, and its "$$<flag><digits>,"
  // never starts an H02 message (a comma is no BCD byte).
  it('the device port picks Meitrack for a Meitrack first frame', () => {
    expect(PROTOCOLS.find((p) => p.detect(report(35)))?.name).toBe('meitrack');
    expect(meitrack.detect(Buffer.from('2441234567890912', 'hex'))).toBe(false);
  });
});

/** A binary packet: "$$<flag><length>,<imei>,<type>," then the data, the checksum and "\r\n". */
function binary(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(`${IMEI},${type},`, 'latin1'), data]);
  const head = Buffer.concat([Buffer.from(`$$U${body.length + 6},`, 'latin1'), body, Buffer.from('*')]);
  return Buffer.concat([head, Buffer.from(`${meitrackChecksum(head)}\r\n`, 'latin1')]);
}
const le = (bytes: number, value: number) => {
  const b = Buffer.alloc(bytes);
  b.writeIntLE(value, 0, bytes);
  return b;
};
const SECONDS_2000 = Date.UTC(2024, 2, 11, 9, 15, 30) / 1000 - Date.UTC(2000, 0, 1) / 1000;
/** One CCC record of the event: a valid fix at 52.5, 13.3, 37 km/h. */
const cccRecord = (event: number) =>
  Buffer.concat([
    Buffer.from([event]), le(4, 52500000), le(4, 13300000), le(4, SECONDS_2000), Buffer.from([1, 8, 20]),
    le(2, 37), le(2, 90), le(2, 9), le(2, 40), le(4, 1000), le(4, 60), le(2, 262), le(2, 2), le(2, 431), le(2, 17003),
    le(2, 0), le(2, 0), le(2, 401), le(2, 0), le(4, 0),
  ]);

describe('Meitrack binary packets', () => {
  it('CCE: parameters by size group become the fix, telemetry and cells', () => {
    const params = Buffer.concat([
      Buffer.from([3, 0x01, 1, 0x05, 1, 0x06, 9]), // event SOS, fix valid, 9 satellites
      Buffer.from([3, 0x08]), le(2, 52), Buffer.from([0x09]), le(2, 181), Buffer.from([0x1a]), le(2, 1395), // km/h, course, power
      Buffer.from([3, 0x02]), le(4, -23550520), Buffer.from([0x03]), le(4, -46633310), Buffer.from([0x04]), le(4, SECONDS_2000),
      Buffer.from([1, 0x0e, 12]), le(2, 724), le(2, 5), le(2, 0x1f2e), le(4, 0x1a2b3), le(2, -70), // a cell
    ]);
    const record = Buffer.concat([le(2, params.length + 2), le(2, 1), params]);
    const r = meitrack.decode(binary('CCE', Buffer.concat([le(4, 0), le(2, 1), record])), protocolState());
    expect(r.reply).toBeUndefined();
    const p = r.positions[0]!;
    expect(p.deviceTime.toISOString()).toBe('2024-03-11T09:15:30.000Z');
    expect([p.valid, p.lat, p.lng, p.speed, p.heading, p.satellites]).toEqual([true, -23.55052, -46.63331, 52, 181, 9]);
    expect(p.attributes).toMatchObject({ event: 1, alarm: 'sos', power: 13.95 });
    expect(p.attributes.network?.cellTowers).toEqual([{ cellId: 0x1a2b3, locationAreaCode: 0x1f2e, mobileCountryCode: 724, mobileNetworkCode: 5, signalStrength: -70 }]);
  });

  it('CCC: fixed records, answered with their count', () => {
    const rec = cccRecord(35);
    const r = meitrack.decode(binary('CCC', Buffer.concat([Buffer.alloc(8), rec, rec])), protocolState());
    expect(r.positions).toHaveLength(2);
    expect(r.positions[0]).toMatchObject({ valid: true, lat: 52.5, lng: 13.3, speed: 37, heading: 90, satellites: 8, altitude: 40 });
    expect(r.positions[0]!.attributes).toMatchObject({ event: 35, odometer: 1000, battery: 4.01 });
    const head = `@@U27,${IMEI},CCC,2*`;
    expect(r.reply!.toString('latin1')).toBe(`${head}${meitrackChecksum(Buffer.from(head))}\r\n`);
  });

  it('a binary packet with a wrong checksum is marked, as a text report is (CRC_STRICT refuses it)', () => {
    // A record holding a '*' (event 42 is 0x2a): the checksum is the one after the last '*'.
    const good = binary('CCC', Buffer.concat([Buffer.alloc(8), cccRecord(42)]));
    expect(meitrack.decode(good, protocolState())).toMatchObject({ badChecksum: false, positions: [{ lat: 52.5 }] });
    const bad = Buffer.from(good);
    bad[bad.length - 3] = bad[bad.length - 3] === 0x30 ? 0x31 : 0x30; // the checksum's second digit
    expect(meitrack.decode(bad, protocolState()).badChecksum).toBe(true);
  });
});
