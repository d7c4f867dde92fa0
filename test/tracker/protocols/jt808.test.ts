// JT/T 808: framing (escapes, split and merged reads), the answers a terminal waits for (exact bytes),
// location reports with their additional items in our units, batches, text answers and command
// replies. Frames are built from the JT/T 808-2019 layout by the simulator's builders or by hand.
import { describe, expect, it } from '@jest/globals';
import { escape } from '../../../tracker/protocols/jt808/framer.js';
import { jt808 } from '../../../tracker/protocols/jt808/index.js';
import { buildMessage } from '../../../tracker/protocols/jt808/message.js';
import { encodeCommand } from '../../../tracker/protocols/registry.js';
import { jt808Auth, jt808CommandAnswer, jt808Heartbeat, jt808Position, jt808Register, jt808Terminal } from '../../../tracker/simulator/frames/jt808.js';
import { hex, protocolState } from './helpers.js';

const IMEI = '864507033191520';
const PHONE = Buffer.from('013912345678', 'hex'); // a 2013 header's 6-byte number
const fix = { time: new Date('2024-05-06T07:08:09Z'), lat: 22.543096, lng: -114.057865, speed: 36.5, heading: 123, altitude: 40, satellites: 11 };
/** Decodes a message as sent: through a framer (which undoes the escapes), then the decoder. */
function decode(sent: Buffer) {
  const frames = jt808.createFramer(4096).push(sent);
  expect(frames).toHaveLength(1);
  return jt808.decode(frames[0]!, protocolState());
}
/** A 2013-header message (6-byte number), built and escaped as a terminal sends it. */
const msg2013 = (type: number, body: Buffer, serial = 7) => buildMessage(type, PHONE, serial, body);

/** The fixed location block: alarm, status, lat, lng, altitude, speed (0.1 km/h), course, BCD time (UTC+8). */
function locationBody(alarm: number, status: number, items: Buffer = Buffer.alloc(0)): Buffer {
  return Buffer.concat([hex(`${alarm.toString(16).padStart(8, '0')} ${status.toString(16).padStart(8, '0')} 01588a08 06cc6a48 0064 0190 005a 240506150809`), items]);
}

describe('JT/T 808 framing', () => {
  it('undoes 7d 01 / 7d 02 escapes and keeps the delimiters', () => {
    const framer = jt808.createFramer(4096);
    expect(framer.push(hex('7e 0002 0000 013912345678 7d02 7d01 00 7e'))).toEqual([hex('7e 0002 0000 013912345678 7e 7d 00 7e')]);
  });

  it('returns the same frames whether the stream is cut at every byte or two frames arrive in one read', () => {
    const frames = [jt808Position(IMEI, fix, { ignition: true }, 1), jt808Heartbeat(IMEI, 2)];
    const stream = Buffer.concat(frames);
    const merged = jt808.createFramer(4096).push(stream);
    expect(merged).toHaveLength(2);
    for (let cut = 1; cut < stream.length; cut++) {
      const framer = jt808.createFramer(4096);
      expect([...framer.push(stream.subarray(0, cut)), ...framer.push(stream.subarray(cut))]).toEqual(merged);
    }
    expect(decode(merged[0]!).positions[0]!.lat).toBeCloseTo(fix.lat, 6);
  });

  it('skips and counts garbage before a frame, and frames a parenthesised text answer', () => {
    const framer = jt808.createFramer(4096);
    const out = framer.push(Buffer.concat([hex('0102'), Buffer.from('(864507033191520,1,001,ELOCK,3,OK)'), jt808Heartbeat(IMEI)]));
    expect(out.map((f) => f[0])).toEqual([0x28, 0x7e]);
    expect(framer.skipped).toBe(2);
  });

  it('takes a message a unit sent without escaping whole when its header declares the 7e inside it', () => {
    // 0x0002 with a 3-byte body 7e 01 02: cut at the inner 7e it would be too short for its header.
    const raw = hex('7e 0002 0003 013912345678 0001 7e0102 00 7e');
    let x = 0;
    for (const b of raw.subarray(1, -2)) x ^= b;
    raw[raw.length - 2] = x;
    const framer = jt808.createFramer(4096);
    expect(framer.push(Buffer.concat([raw, jt808Heartbeat(IMEI)]))).toEqual([raw, jt808Heartbeat(IMEI)]);
    expect(framer.skipped).toBe(0);
  });

  it('never buffers past the size cap', () => {
    const framer = jt808.createFramer(64);
    expect(framer.push(Buffer.concat([hex('7e'), Buffer.alloc(200, 0x41)]))).toEqual([]);
    expect(framer.push(jt808Heartbeat(IMEI))).toHaveLength(1);
  });
});

describe('JT/T 808 answers', () => {
  it('answers a registration with 0x8100: its serial, result 0 and the terminal id as auth code', () => {
    const r = decode(msg2013(0x0100, Buffer.alloc(37), 0x0102));
    expect(r.identity).toBe('13912345678');
    expect(r.positions).toEqual([]);
    // 7e 8100 attrs(len 14) number serial(0) | serial 0102, result 00, "13912345678" | xor 7e
    const body = Buffer.concat([hex('0102 00'), Buffer.from('13912345678', 'ascii')]);
    const expected = Buffer.concat([hex('7e 8100 000e 013912345678 0000'), body]);
    let x = 0;
    for (const b of expected.subarray(1)) x ^= b;
    expect(r.reply).toEqual(Buffer.concat([expected, Buffer.from([x, 0x7e])]));
  });

  it('answers auth, heartbeat and location with the general answer 0x8001 (serial, message id, 0)', () => {
    expect(decode(jt808Auth(IMEI, IMEI, 0x0203)).reply).toEqual(buildMessage(0x8001, jt808Terminal(IMEI), 0, hex('0203 0102 00'), 1));
    const beat = decode(msg2013(0x0002, Buffer.alloc(0), 9));
    expect(beat.heartbeat).toBe(true);
    expect(beat.reply).toEqual(hex('7e 8001 0005 013912345678 0000 0009 0002 00 bf 7e'));
    expect(decode(msg2013(0x0200, locationBody(0, 2), 0x7e7d)).reply).toEqual(buildMessage(0x8001, PHONE, 0, hex('7e7d 0200 00')));
  });

  it('escapes an answer whose bytes contain 7e or 7d', () => {
    const reply = decode(msg2013(0x0002, Buffer.alloc(0), 0x7e7d)).reply!;
    expect(reply.subarray(1, -1).includes(0x7e)).toBe(false);
    expect(reply.toString('hex')).toContain('7d027d01');
  });

  it('reads the 2019 header (version byte, 10-byte number) as the IMEI and answers in the same header', () => {
    const r = decode(jt808Register(IMEI, 5));
    expect(r.identity).toBe(IMEI);
    expect(r.reply!.subarray(0, 6)).toEqual(hex('7e 8100 4012 01'));
  });

  it('counts a wrong check code and still decodes the message', () => {
    const frame = msg2013(0x0200, locationBody(0, 2));
    frame[frame.length - 2] = frame[frame.length - 2]! ^ 0xff;
    const r = jt808.decode(frame, protocolState());
    expect(r.badChecksum).toBe(true);
    expect(r.positions).toHaveLength(1);
  });

  it('acknowledges each packet of a split message (attribute bit 13) without reading its body', () => {
    const packet = hex('7e 0200 2002 013912345678 0005 0002 0001 ffff 00 7e');
    let x = 0;
    for (const b of packet.subarray(1, -2)) x ^= b;
    packet[packet.length - 2] = x;
    const r = decode(packet);
    expect(r.positions).toEqual([]);
    expect(r.reply).toEqual(buildMessage(0x8001, PHONE, 0, hex('0005 0200 00')));
  });

  it('reads a number that is not BCD as an IMEI prefix and completes it with its Luhn digit', () => {
    const r = decode(buildMessage(0x0002, hex('4f07788ef87d'), 1, Buffer.alloc(0)));
    expect(r.identity).toBe('868935060010210');
  });
});

describe('JT/T 808 location reports', () => {
  it('0x0200: fix in our units, Beijing time to UTC, status flags, items for mileage, fuel, signal, satellites', () => {
    const r = decode(jt808Position(IMEI, fix, { ignition: true, fuelLevel: 42.5 }, 3, 1234.5));
    const p = r.positions[0]!;
    expect(p).toMatchObject({ deviceTime: fix.time, valid: true, speed: 36.5, heading: 123, altitude: 40, satellites: 11 });
    expect(p.lat).toBeCloseTo(22.543096, 6);
    expect(p.lng).toBeCloseTo(-114.057865, 6);
    expect(p.attributes).toMatchObject({ ignition: true, odometer: 1_234_500, fuel: 42.5, rssi: 25 });
  });

  it('alarm word bits become alarms (SOS, overspeed, power off, vibration…), several joined with commas', () => {
    const r = decode(msg2013(0x0200, locationBody(0x0000_8103, 0x0400_0402)));
    const p = r.positions[0]!;
    expect(p.attributes.alarm).toBe('sos,overspeed,powerOff,vibration');
    expect(p.attributes).toMatchObject({ blocked: true, charge: true, ignition: false });
    expect(p.valid).toBe(true);
    expect(p.lat).toBeCloseTo(22.57972, 6);
    expect(p.speed).toBe(40);
    expect(p.heading).toBe(90);
    expect(p.deviceTime.toISOString()).toBe('2024-05-06T07:08:09.000Z');
  });

  it('reads battery, power, temperatures, ICCID and cells from the additional items', () => {
    const items = hex(`
      e3 04 00 55 019f
      d3 02 0079
      51 02 806c
      eb 0d 01cc 00 2495 0a7d 3c 2496 0a7e 28
    `);
    const p = decode(msg2013(0x0200, locationBody(0, 2, items))).positions[0]!;
    expect(p.attributes).toMatchObject({ batteryLevel: 85, battery: 4.15, power: 12.1, temp1: -10.8 });
    expect(p.attributes.network?.cellTowers).toEqual([
      { mobileCountryCode: 460, mobileNetworkCode: 0, locationAreaCode: 0x2495, cellId: 0x0a7d, signalStrength: 0x3c },
      { mobileCountryCode: 460, mobileNetworkCode: 0, locationAreaCode: 0x2496, cellId: 0x0a7e, signalStrength: 0x28 },
    ]);
  });

  it('an item shorter than its layout is skipped and the report still stored', () => {
    const p = decode(msg2013(0x0200, locationBody(0, 2, hex('01 02 0001 31 01 09')))).positions[0]!;
    expect(p.attributes.odometer).toBeUndefined();
    expect(p.satellites).toBe(9);
  });

  it('0x0704 batch: every record is a position, re-sent ones marked archive', () => {
    const record = locationBody(0, 2, hex('31 01 05'));
    const len = Buffer.from([record.length >> 8, record.length & 0xff]);
    const r = decode(msg2013(0x0704, Buffer.concat([hex('0002 01'), len, record, len, record])));
    expect(r.positions).toHaveLength(2);
    expect(r.positions.every((p) => p.attributes.archive === true && p.satellites === 5)).toBe(true);
    expect(r.reply).toEqual(buildMessage(0x8001, PHONE, 0, hex('0007 0704 00')));
  });
});

describe('JT/T 808 e-lock reports', () => {
  it('0x5501: BCD fix in ddmm.mmmm, one-byte serial, lock items; answered 0x4401 when bit 15 asks', () => {
    // 06/05/21 17:59:40 UTC, 2234.8474 N, 11355.0560 E (flags 7: valid, north, east), 5 km/h, 304°.
    const body = hex(`
      060521 175940 22348474 1135505607 05 98
      1e 04 00000002 37 0ac30c0c 2866 03 0020 0008
      02 02 0064 0b 02 01 65 0c 06 ff98 ffa8 007e
    `);
    const head = Buffer.concat([hex('7e 5501'), Buffer.from([0x80 | (body.length >> 8), body.length & 0xff]), PHONE, hex('2a')]);
    const frame = Buffer.concat([head, body, hex('00 7e')]);
    let x = 0;
    for (const b of frame.subarray(1, -2)) x ^= b;
    frame[frame.length - 2] = x;
    const r = decode(escape(frame)); // the tilt's 7e travels escaped
    const p = r.positions[0]!;
    expect(p).toMatchObject({ valid: true, speed: 5, heading: 304, satellites: 4, altitude: 100 });
    expect(p.deviceTime.toISOString()).toBe('2021-05-06T17:59:40.000Z');
    expect(p.lat).toBeCloseTo(22 + 34.8474 / 60, 6);
    expect(p.lng).toBeCloseTo(113 + 55.056 / 60, 6);
    expect(p.attributes).toMatchObject({ rssi: 30, odometer: 2000, batteryLevel: 55, blocked: true, alarm: 'lowBattery' });
    expect(p.attributes.io).toMatchObject({ lockCommand: 1, unlockResult: 0x65, tilt: '[-104,-88,126]' });
    expect(r.reply).toEqual(buildMessage(0x4401, PHONE, 1, hex('5501 00'), undefined, true));
  });
});

describe('JT/T 808 text and command replies', () => {
  it("0x0001: the terminal's answer to a command names the command and its result", () => {
    const r = decode(jt808CommandAnswer(IMEI, 0x0042, 0x8105, 9));
    expect(r.commandReply).toBe('0x8105 #66: success');
    expect(r.positions).toEqual([]);
  });

  it('0x0701 and 0x6006 carry text answers; "(…)" text is an answer too', () => {
    const text = Buffer.from('SET CONFIG OK!', 'ascii');
    const len = Buffer.alloc(4);
    len.writeUInt32BE(text.length);
    expect(decode(msg2013(0x0701, Buffer.concat([len, text]))).commandReply).toBe('SET CONFIG OK!');
    const report = decode(msg2013(0x6006, Buffer.concat([hex('00'), Buffer.from('<VER:1.02>')])));
    expect(report.attributes?.result).toBe('<VER:1.02>');
    expect(decode(Buffer.from('(864507033191520,1,001,ELOCK,3,OK)')).commandReply).toBe('(864507033191520,1,001,ELOCK,3,OK)');
  });

  it('"(…BASE,2,TIME)" is echoed with the server time', () => {
    const r = decode(Buffer.from('(864507033191520,1,001,BASE,2,TIME)'));
    expect(r.reply?.toString()).toMatch(/^\(864507033191520,1,001,BASE,2,\d{14}\)$/);
    expect(r.positions).toEqual([]);
  });
});

describe('JT/T 808 commands', () => {
  /**
   * A downlink as the standard lays it out, built here by hand: 7e | message id | attributes (body
   * length; bit 14 and a version byte for 2019) | phone number | serial | body | XOR of everything
   * from the id to the body | 7e, with 7e and 7d inside sent as 7d 02 and 7d 01.
   */
  function downlink(type: number, phone: string, serial: number, body: string, version?: number): Buffer {
    const b = hex(body);
    const attributes = b.length | (version === undefined ? 0 : 0x4000);
    const inner = Buffer.concat([
      hex(`${type.toString(16).padStart(4, '0')} ${attributes.toString(16).padStart(4, '0')}`),
      version === undefined ? Buffer.alloc(0) : Buffer.from([version]),
      hex(phone),
      hex(serial.toString(16).padStart(4, '0')),
      b,
    ]);
    const check = inner.reduce((x, byte) => x ^ byte, 0);
    const escaped = [...inner, check].flatMap((byte) => (byte === 0x7e ? [0x7d, 0x02] : byte === 0x7d ? [0x7d, 0x01] : [byte]));
    return Buffer.from([0x7e, ...escaped, 0x7e]);
  }

  /** A connection whose terminal spoke the 2013 header with this number. */
  const spoke2013 = () => {
    const conn = protocolState();
    jt808.decode(jt808.createFramer(4096).push(msg2013(0x0002, Buffer.alloc(0)))[0]!, conn);
    return conn;
  };

  const cases: [Parameters<typeof encodeCommand>[1], object, number, string][] = [
    ['locate', {}, 0x8201, ''],
    ['engineStop', {}, 0x8105, 'f0'],
    ['engineResume', {}, 0x8105, 'f1'],
    ['reboot', {}, 0x8105, '04'],
    // one parameter: id 0x00000029 (default time report interval), length 4, 30 s
    ['setInterval', { seconds: 30 }, 0x8103, '01 00000029 04 0000001e'],
  ];

  it.each(cases)('%s, to the number and header version the terminal spoke (2013)', (type, params, id, body) => {
    expect(encodeCommand('jt808', type, 0x1234, params, spoke2013())?.toString('hex')).toBe(downlink(id, '013912345678', 0x1234, body).toString('hex'));
  });

  it.each(cases)('%s, to a terminal speaking the 2019 header (10-byte number, version byte)', (type, params, id, body) => {
    const conn = protocolState();
    jt808.decode(jt808.createFramer(4096).push(jt808Heartbeat(IMEI))[0]!, conn);
    expect(encodeCommand('jt808', type, 7, params, conn)?.toString('hex')).toBe(downlink(id, `00000${IMEI}`, 7, body, 1).toString('hex'));
  });

  it('without a connection, a 15-digit id is the 48-bit number without its Luhn digit; a phone number is BCD', () => {
    // 12345678901234 = 0x0b3a73ce2ff2
    expect(encodeCommand('jt808', 'engineStop', 0, { identity: '123456789012345' })?.toString('hex')).toBe(downlink(0x8105, '0b3a73ce2ff2', 0, 'f0').toString('hex'));
    expect(encodeCommand('jt808', 'reboot', 3, { identity: '13912345678' })?.toString('hex')).toBe(downlink(0x8105, '013912345678', 3, '04').toString('hex'));
    expect(encodeCommand('jt808', 'locate', 3, { identity: '12345678901234567890' })?.toString('hex')).toBe(downlink(0x8201, '12345678901234567890', 3, '', 1).toString('hex'));
  });

  it('escapes a serial or value holding 7e or 7d', () => {
    expect(encodeCommand('jt808', 'setInterval', 0x7e7d, { seconds: 126 }, spoke2013())).toEqual(downlink(0x8103, '013912345678', 0x7e7d, '01 00000029 04 0000007e'));
  });

  it('the serial is the low 16 bits of the command number', () => {
    expect(encodeCommand('jt808', 'reboot', 0x10005, {}, spoke2013())).toEqual(downlink(0x8105, '013912345678', 5, '04'));
  });

  it('sends a custom frame given as hex as is, and custom text as a 0x8300 text message flagged urgent', () => {
    expect(encodeCommand('jt808', 'custom', 1, { hex: '7e8105000101391234567800000af07e' })).toEqual(hex('7e8105000101391234567800000af07e'));
    // JT/T 808 0x8300: flag byte (bit 0 urgent), then the text; the command's number is the serial.
    const text = Buffer.from('RELAY,1#', 'latin1').toString('hex');
    expect(encodeCommand('jt808', 'custom', 9, { text: 'RELAY,1#' }, spoke2013())).toEqual(downlink(0x8300, '013912345678', 9, `01 ${text}`));
    expect(encodeCommand('jt808', 'custom', 9, { text: 'RELAY,1#', identity: '123456789012345' })?.toString('hex')).toBe(downlink(0x8300, '0b3a73ce2ff2', 9, `01 ${text}`).toString('hex'));
  });

  it('the general answer 0x0001 finds its command by serial; a result other than 0 fails it', () => {
    expect(decode(jt808CommandAnswer(IMEI, 0x1234, 0x8105, 9))).toMatchObject({ commandReply: '0x8105 #4660: success', commandSeq: 0x1234 });
    expect(decode(jt808CommandAnswer(IMEI, 0x1234, 0x8105, 9)).commandFailed).toBeUndefined();
    for (const [result, outcome] of [[1, 'failure'], [2, 'bad message'], [3, 'not supported']] as const) {
      expect(decode(jt808CommandAnswer(IMEI, 0x0007, 0x8103, 9, result))).toMatchObject({ commandReply: `0x8103 #7: ${outcome}`, commandSeq: 7, commandFailed: true });
    }
  });

  it('the position answer 0x0201 carries the query serial and the position', () => {
    const r = decode(msg2013(0x0201, Buffer.concat([hex('1234'), locationBody(0, 0x02)])));
    expect(r).toMatchObject({ commandReply: '0x8201 #4660: position', commandSeq: 0x1234 });
    expect(r.positions).toHaveLength(1);
    expect(r.positions[0]).toMatchObject({ valid: true, lat: 22.57972, lng: 114.059848 });
  });
});
