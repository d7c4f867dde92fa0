// Queclink @Track: reports built per the manufacturer's air interface layout (simulator builders or
// written out here), decoded to our units; the heartbeat answer; framing; command encodings.
import { describe, expect, it } from '@jest/globals';
import { gl200 } from '../../../tracker/protocols/gl200/index.js';
import { encodeCommand } from '../../../tracker/protocols/registry.js';
import { gl200Alarm, gl200Binary, gl200CommandAck, gl200Heartbeat, gl200Ignition, gl200Position } from '../../../tracker/simulator/frames/gl200.js';
import { protocolState } from './helpers.js';

const IMEI = '864502031234567';
const fix = { time: new Date('2024-02-03T04:05:06Z'), lat: -33.393457, lng: -70.616413, speed: 42.5, heading: 105, altitude: 532.2 };
const decode = (frame: Buffer | string) => gl200.decode(typeof frame === 'string' ? Buffer.from(frame, 'latin1') : frame, protocolState());
/** What the framer hands the decoder: the frame without its '$'. */
const framed = (frame: Buffer) => frame.subarray(0, frame.length - 1);

describe('gl200 reports', () => {
  it('GTFRI: the fix in km/h, degrees and metres, power, battery and the serving cell', () => {
    const r = decode(framed(gl200Position(IMEI, fix, { power: 12.6, batteryLevel: 88 })));
    expect(r.identity).toBe(IMEI);
    expect(r.positions).toHaveLength(1);
    const p = r.positions[0]!;
    expect(p).toMatchObject({ deviceTime: fix.time, valid: true, lat: -33.393457, lng: -70.616413, speed: 42.5, heading: 105, altitude: 532.2 });
    expect(p.attributes).toMatchObject({ power: 12.6, batteryLevel: 88, hdop: 1 });
    expect(p.attributes.network).toEqual({ cellTowers: [{ mobileCountryCode: 234, mobileNetworkCode: 15, locationAreaCode: 0x25, cellId: 0x145a }] });
    expect(r.reply).toBeUndefined();
  });

  it('GTFRI with several fixes: one position each, the report values on the last', () => {
    const block = (lng: string, time: string) => `1,10.0,90,20.0,${lng},51.500700,${time},0234,0015,0025,145A`;
    const text = `+RESP:GTFRI,060102,${IMEI},gv300,12600,10,2,${block('-0.124600', '20240203040500')},${block('-0.125600', '20240203040530')},00,2000.0,,,,,77,210000,,,,20240203040531,0012$`;
    const r = decode(text);
    expect(r.positions.map((p) => [p.lng, p.deviceTime.toISOString()])).toEqual([
      [-0.1246, '2024-02-03T04:05:00.000Z'],
      [-0.1256, '2024-02-03T04:05:30.000Z'],
    ]);
    expect(r.positions[0]!.attributes.batteryLevel).toBeUndefined();
    expect(r.positions[1]!.attributes.batteryLevel).toBe(77);
  });

  it('a fix with GPS accuracy 0 is the last known one: stored, not valid', () => {
    const r = decode(framed(gl200Position(IMEI, { ...fix, valid: false })));
    expect(r.positions[0]).toMatchObject({ valid: false, lat: fix.lat, lng: fix.lng });
  });

  it('+BUFF reports are the same report re-sent from memory', () => {
    expect(decode(framed(gl200Position(IMEI, fix, {}, 1, true))).positions[0]!.attributes.archive).toBe(true);
  });

  it('GTSOS raises the sos alarm; GTSPD overspeed; GTMPF power cut', () => {
    expect(decode(gl200Alarm(IMEI, fix, 'sos')).positions[0]!.attributes.alarm).toBe('sos');
    expect(decode(gl200Alarm(IMEI, fix, 'overspeed')).positions[0]!.attributes.alarm).toBe('overspeed');
    expect(decode(gl200Alarm(IMEI, fix, 'powerCut')).positions[0]!.attributes.alarm).toBe('powerCut');
  });

  it('GTIGN / GTIGF set the ignition', () => {
    expect(decode(gl200Ignition(IMEI, fix, true)).positions[0]!.attributes.ignition).toBe(true);
    expect(decode(gl200Ignition(IMEI, fix, false)).positions[0]!.attributes.ignition).toBe(false);
  });

  it('GTHBM: the harsh-driving kind from the report type', () => {
    const hbm = (type: string) => `+RESP:GTHBM,060102,${IMEI},gv300,,${type},1,1,4.3,92,70.0,121.354335,31.222073,20240203040506,0460,0000,18d8,6141,00,2000.0,20240203040507,11F0$`;
    expect(decode(hbm('10')).positions[0]!.attributes.alarm).toBe('hardBraking');
    expect(decode(hbm('11')).positions[0]!.attributes.alarm).toBe('hardAcceleration');
    expect(decode(hbm('12')).positions[0]!.attributes.alarm).toBe('hardCornering');
  });

  it('GTPFA without a location: the power-off alarm as attributes only', () => {
    const r = decode(`+RESP:GTPFA,060102,${IMEI},gv300,20240203040506,0BD4$`);
    expect(r.positions).toEqual([]);
    expect(r.attributes).toEqual({ alarm: 'powerOff' });
  });

  it('GTGSM without a fix: the cells heard, stored unlocated at the send time', () => {
    const r = decode(`+RESP:GTGSM,400201,${IMEI},STR,0234,0015,003a,62a2,16,,0234,0015,003a,56a2,14,,20240203040506,0033$`);
    expect(r.positions).toEqual([{
      deviceTime: fix.time, valid: false, lat: 0, lng: 0, speed: 0, heading: 0,
      attributes: { network: { cellTowers: [
        { mobileCountryCode: 234, mobileNetworkCode: 15, locationAreaCode: 0x3a, cellId: 0x62a2 },
        { mobileCountryCode: 234, mobileNetworkCode: 15, locationAreaCode: 0x3a, cellId: 0x56a2 },
      ] } },
    }]);
  });

  it('GTWIF: the access points seen, stored unlocated', () => {
    const r = decode(`+RESP:GTWIF,210102,${IMEI},,2,c413e200ff14,-39,,,,c8d3ff04a837,-43,,,,,,,,97,20240203040506,05E3$`);
    expect(r.positions[0]).toMatchObject({ valid: false, lat: 0, lng: 0 });
    expect(r.positions[0]!.attributes.network).toEqual({ wifiAccessPoints: [
      { macAddress: 'c4:13:e2:00:ff:14', signalStrength: -39 },
      { macAddress: 'c8:d3:ff:04:a8:37', signalStrength: -43 },
    ] });
  });

  it('the device status word: ignition, inputs and outputs', () => {
    const a = decode(framed(gl200Position(IMEI, fix, { ignition: true }))).positions[0]!.attributes;
    expect(a).toMatchObject({ ignition: true, input: 1, output: 0, in1: false, in2: false, out1: false, out2: false });
    expect(decode(framed(gl200Position(IMEI, fix, { ignition: false }))).positions[0]!.attributes.ignition).toBe(false);
  });

  it('GL5xx units keep the battery level after the signal quality', () => {
    const r = decode(`+RESP:GTFRI,DE0114,${IMEI},,0,0,1,1,0.0,0,28.0,-118.268093,33.975430,20240203040506,0311,0480,3500,00D07F02,18,0,,93,0,,,20240203040510,0355$`);
    expect(r.positions[0]!.attributes.batteryLevel).toBe(93);
  });

  it('GTERI: the fuel sensor and 1-wire temperature probes its mask announces', () => {
    const eri = (mask: string, extra: string) => `+RESP:GTERI,270B01,${IMEI},gv300w,${mask},,10,1,1,0.0,15,28.2,-58.695253,-34.625413,20240203040506,0722,0007,1168,16B3BB,00,0.0,,,,99,210100,2,${extra},20240203040510,07C7$`;
    expect(decode(eri('00000001', '01F4')).positions[0]!.attributes).toMatchObject({ fuel: 500, batteryLevel: 99, ignition: true });
    expect(decode(eri('00000002', '2,28F8A149F69A3C25,1,0190,28F8A149F69A3C26,1,FFF0')).positions[0]!.attributes).toMatchObject({ temp1: 25, temp2: -1 });
  });

  it('GTCAN: the values its mask announces', () => {
    const r = decode(`+RESP:GTCAN,310701,${IMEI},,10,0,000001FF,1HGCM82633A004352,1,H46358,12305.50,601,0,83,,P53.00,,20240203040506,2945$`);
    expect(r.attributes).toEqual({ vin: '1HGCM82633A004352', ignition: true, fuelUsed: 12305.5, rpm: 601, obdSpeed: 0, coolantTemp: 83, fuelLevel: 53 });
  });

  it('GTVER: the unit type and versions under io', () => {
    const r = decode(`+RESP:GTVER,1A0800,${IMEI},GL300,GL300,0A03,0103,20240203040506,10F8$`);
    expect(r.attributes).toEqual({ io: { deviceType: 'GL300', versionFw: 0x0a03, versionHw: 0x0103 } });
  });

  it('GTINF: state, SIM, signal, external power and battery, no position', () => {
    const r = decode(`+RESP:GTINF,060102,${IMEI},gv300,22,89883030000091225018,21,0,1,12349,,4.15,1,1,0,0,20240203040500,0,0,0,0,00,00,+0000,0,20240203040506,7D4F$`);
    expect(r.positions).toEqual([]);
    expect(r.attributes).toEqual({ ignition: true, motion: true, iccid: '89883030000091225018', rssi: 21, power: 12.349, battery: 4.15 });
  });

  it('+ACK:GTHBD is answered +SACK:GTHBD,<version>,<count>$', () => {
    const r = decode(framed(gl200Heartbeat(IMEI, fix.time, 0x11f0)));
    expect(r.heartbeat).toBe(true);
    expect(r.identity).toBe(IMEI);
    expect(r.reply?.toString('latin1')).toBe('+SACK:GTHBD,060102,11F0$');
  });

  it("a command's +ACK is the command reply, carrying the serial the command was sent with", () => {
    const r = decode(framed(gl200CommandAck(IMEI, 'RTO', '002A', fix.time, 3)));
    expect(r.commandReply).toBe(`+ACK:GTRTO,060102,${IMEI},gv300,002A,20240203040506,0003`);
    expect(r.positions).toEqual([]);
    expect(r.reply).toBeUndefined();
  });

  it('text that is not an @Track report decodes to nothing', () => {
    expect(decode('+RESP:GTFRI')).toEqual({ positions: [] });
    expect(decode('hello,world,1,2')).toEqual({ positions: [] });
  });
});

describe('gl200 binary reports', () => {
  it('+RSP: every fix, with battery, power and satellites', () => {
    const second = { ...fix, time: new Date('2024-02-03T04:06:06Z'), lat: -33.4, speed: 0 };
    const r = decode(gl200Binary('+RSP', IMEI, [{ ...fix, satellites: 9 }, second], { power: 12.6, batteryLevel: 80 }));
    expect(r.identity).toBe(IMEI);
    expect(r.positions).toHaveLength(2);
    expect(r.positions[0]).toMatchObject({ deviceTime: fix.time, valid: true, lat: -33.393457, lng: -70.616413, speed: 42.5, heading: 105, altitude: 532, satellites: 9 });
    expect(r.positions[0]!.attributes).toMatchObject({ batteryLevel: 80, power: 12.6 });
    expect(r.positions[1]).toMatchObject({ deviceTime: second.time, lat: -33.4, speed: 0 });
    expect(r.reply).toBeUndefined();
  });

  it('+EVT: the event fix; HDOP 0 is no fix', () => {
    const r = decode(gl200Binary('+EVT', IMEI, [{ ...fix, valid: false }]));
    expect(r.positions).toHaveLength(1);
    expect(r.positions[0]).toMatchObject({ valid: false, lat: -33.393457, lng: -70.616413 });
  });

  it('a binary report cut short decodes to nothing', () => {
    const frame = gl200Binary('+RSP', IMEI, [fix]);
    expect(decode(frame.subarray(0, 40))).toEqual({ positions: [] });
  });
});

describe('gl200 framer', () => {
  const frames = [gl200Position(IMEI, fix, { power: 12.6 }), gl200Heartbeat(IMEI, fix.time, 2), gl200Binary('+EVT', IMEI, [fix]), gl200Alarm(IMEI, fix, 'sos', 3)];
  const all = Buffer.concat(frames);
  // Text frames lose their '$'; binary ones come whole.
  const expected = frames.map((frame, i) => (i === 2 ? frame : framed(frame)));
  const feed = (chunks: Buffer[], max = 4096) => {
    const framer = gl200.createFramer(max);
    return { out: chunks.flatMap((c) => framer.push(c)), skipped: framer.skipped };
  };

  it('splits several reports delivered in one read, each without its $', () => {
    expect(feed([all]).out).toEqual(expected);
  });

  it('reassembles reports split at every byte', () => {
    for (let cut = 1; cut < all.length; cut++) expect(feed([all.subarray(0, cut), all.subarray(cut)]).out).toEqual(expected);
    expect(feed([...all].map((b) => Buffer.from([b]))).out).toEqual(expected);
  });

  it('skips garbage between reports and counts it; line endings are not garbage', () => {
    const junk = Buffer.from('hello', 'latin1');
    const { out, skipped } = feed([junk, frames[0]!, Buffer.from('\r\n'), junk, ...frames.slice(1)]);
    expect(out).toEqual(expected);
    expect(skipped).toBe(10);
  });

  it('a report without its $ within the cap is dropped and the stream resyncs', () => {
    const runaway = Buffer.from('+RESP:GTFRI,' + 'x'.repeat(600), 'latin1');
    const { out, skipped } = feed([runaway, frames[0]!], 512);
    expect(out).toEqual([expected[0]]);
    expect(skipped).toBe(runaway.length);
  });

  it('a report cut off by the next one is dropped; a + inside a report is not a new one', () => {
    const cut = Buffer.from('+RESP:GTFRI,060102,8645', 'latin1');
    const { out, skipped } = feed([cut, frames[0]!]);
    expect(out).toEqual([expected[0]]);
    expect(skipped).toBe(cut.length);
    const info = Buffer.from(`+RESP:GTINF,060102,${IMEI},gv300,22,,21,0,1,12349,,4.15,1,1,0,0,,0,0,0,0,00,00,+0000,0,20240203040506,7D4F$`, 'latin1');
    expect(feed([info]).out).toEqual([framed(info)]);
  });

  it('binary reports are cut by their length field', () => {
    const binary = Buffer.alloc(40, 0x11);
    binary.write('+EVT', 0, 'latin1');
    binary.writeUInt16BE(40, 9);
    expect(feed([Buffer.concat([binary, frames[1]!])]).out).toEqual([binary, expected[1]]);
    // The newer format: '+', NUL, then the length.
    const newer = Buffer.alloc(24, 0x22);
    newer[0] = 0x2b;
    newer[1] = 0;
    newer.writeUInt16BE(24, 2);
    expect(feed([newer.subarray(0, 10), newer.subarray(10)]).out).toEqual([newer]);
  });

  it('detects @Track from the first report, text or binary', () => {
    expect(gl200.detect(frames[0]!)).toBe(true);
    expect(gl200.detect(frames[1]!)).toBe(true);
    expect(gl200.detect(Buffer.from('+EVT\x0c\x00', 'latin1'))).toBe(true);
    expect(gl200.detect(Buffer.from('+CMGS: 1', 'latin1'))).toBe(false);
  });
});

describe('gl200 commands', () => {
  const text = (command: Parameters<typeof encodeCommand>[1], seq: number, params = {}) => encodeCommand('gl200', command, seq, params)?.toString('latin1');

  it('encodes locate, engine stop/resume and reboot with the sequence number as the serial', () => {
    expect(text('locate', 0x2a)).toBe('AT+GTRTO=,1,,,,,,002A$');
    expect(text('engineStop', 7)).toBe('AT+GTOUT=,1,,,0,0,0,0,0,0,0,,,,,,,0007$');
    expect(text('engineResume', 0x1ffff)).toBe('AT+GTOUT=,0,,,0,0,0,0,0,0,0,,,,,,,FFFF$');
    expect(text('reboot', 0xabc)).toBe('AT+GTRTO=,3,,,,,,0ABC$');
  });

  it('sends custom text as given and has no setInterval', () => {
    expect(text('custom', 1, { text: 'AT+GTVER=gv300,0,,,,,0001$' })).toBe('AT+GTVER=gv300,0,,,,,0001$');
    expect(encodeCommand('gl200', 'setInterval', 1, { seconds: 30 })).toBeNull();
  });
});
