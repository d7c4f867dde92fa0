// Every command type each protocol has, as the bytes that go to the unit, built here from the
// manufacturers' documented layouts; and the GT06 reply's echoed flag, which finds its command.
import { describe, expect, it } from '@jest/globals';
import { crc16Ibm, crc16X25 } from '../../../tracker/protocols/crc.js';
import { commandTypes, encodeCommand } from '../../../tracker/protocols/registry.js';
import { gt06 } from '../../../tracker/protocols/gt06/index.js';
import { gt06CommandReply } from '../../../tracker/simulator/frames/gt06.js';
import { protocolState } from './helpers.js';

/** 78 78 | length | 80 | command length | server flag (4) | ASCII | serial (2) | CRC-ITU | 0D 0A. */
function gt06Online(text: string, flag: number): Buffer {
  const body = Buffer.concat([Buffer.from([0x80, 4 + text.length]), Buffer.alloc(4), Buffer.from(text, 'ascii'), Buffer.alloc(2)]);
  body.writeUInt32BE(flag, 2);
  body.writeUInt16BE(flag & 0xffff, body.length - 2);
  const framed = Buffer.concat([Buffer.from([0x78, 0x78, body.length + 2]), body, Buffer.alloc(4)]);
  framed.writeUInt16BE(crc16X25(framed, 2, framed.length - 4), framed.length - 4);
  framed.writeUInt16BE(0x0d0a, framed.length - 2);
  return framed;
}

/** Codec 12: 4 zero bytes | data length | 0C | 01 | 05 (command) | size | payload | 01 | CRC-16/IBM over the data. */
function codec12(payload: Buffer): Buffer {
  const data = Buffer.concat([Buffer.from([0x0c, 0x01, 0x05]), Buffer.alloc(4), payload, Buffer.from([0x01])]);
  data.writeUInt32BE(payload.length, 3);
  const out = Buffer.concat([Buffer.alloc(8), data, Buffer.alloc(4)]);
  out.writeUInt32BE(data.length, 4);
  out.writeUInt32BE(crc16Ibm(data, 0, data.length), out.length - 4);
  return out;
}

describe('GT06 commands (Concox online command 0x80)', () => {
  const cases: [Parameters<typeof encodeCommand>[1], object, string][] = [
    ['locate', {}, 'WHERE#'],
    ['engineStop', {}, 'Relay,1#'],
    ['engineResume', {}, 'Relay,0#'],
    ['reboot', {}, 'RESET#'],
    ['setInterval', { seconds: 30 }, 'TIMER,30,30#'],
    ['custom', { text: 'DYD,123456#' }, 'DYD,123456#'],
  ];
  it.each(cases)('%s', (type, params, text) => {
    expect(encodeCommand('gt06', type, 0x01020304, params)?.toString('hex')).toBe(gt06Online(text, 0x01020304).toString('hex'));
  });

  it('a reply carries the flag of the command it answers', () => {
    const reply = gt06.decode(gt06CommandReply('Cut off the fuel supply: Success!', 0x01020304), protocolState('123456789012345'));
    expect(reply).toMatchObject({ commandReply: 'Cut off the fuel supply: Success!', commandSeq: 0x01020304 });
  });

  it('custom takes text only', () => {
    expect(() => encodeCommand('gt06', 'custom', 1, { hex: '0102' })).toThrow('text');
  });
});

describe('Teltonika commands (Codec 12)', () => {
  const cases: [Parameters<typeof encodeCommand>[1], object, Buffer][] = [
    ['locate', {}, Buffer.from('getgps')],
    ['engineStop', {}, Buffer.from('setdigout 1')],
    ['engineResume', {}, Buffer.from('setdigout 0')],
    ['reboot', {}, Buffer.from('cpureset')],
    ['custom', { text: 'getinfo' }, Buffer.from('getinfo')],
    ['custom', { hex: '03030000000185e8' }, Buffer.from([0x03, 0x03, 0, 0, 0, 0x01, 0x85, 0xe8])],
  ];
  it.each(cases)('%s %j', (type, params, payload) => {
    expect(encodeCommand('teltonika', type, 7, params)?.toString('hex')).toBe(codec12(payload).toString('hex'));
  });

  it('has no setInterval (a model-specific parameter: a custom setparam)', () => {
    expect(commandTypes('teltonika')).not.toContain('setInterval');
  });
});

describe('H02 commands (*HQ text)', () => {
  const identity = '4210051415';
  const cases: [Parameters<typeof encodeCommand>[1], object, string][] = [
    ['engineStop', {}, 'S20,{time},1,1'],
    ['engineResume', {}, 'S20,{time},1,0'],
    ['setInterval', { seconds: 10 }, 'S71,{time},22,10'],
    ['custom', { text: 'SCF,0,0' }, 'SCF,{time},0,0'],
  ];
  it.each(cases)('%s', (type, params, layout) => {
    const before = new Date();
    const text = encodeCommand('h02', type, 1, { ...params, identity })!.toString('ascii');
    const time = /^\*HQ,4210051415,\w+,(\d{6}),/.exec(text)?.[1];
    expect(text).toBe(`*HQ,${identity},${layout.replace('{time}', time ?? 'missing')}#`);
    // The time field is the UTC time of day the command was made.
    const [h, m, s] = [0, 2, 4].map((i) => Number(time!.slice(i, i + 2)));
    const made = Date.UTC(before.getUTCFullYear(), before.getUTCMonth(), before.getUTCDate(), h, m, s);
    expect(Math.abs(made - before.getTime())).toBeLessThan(2000);
  });

  it('has neither locate nor reboot', () => {
    expect(commandTypes('h02')).toEqual(['engineStop', 'engineResume', 'setInterval', 'custom']);
  });
});

describe('OsmAnd (Traccar Client)', () => {
  it('takes locate only', () => {
    expect(commandTypes('osmand')).toEqual(['locate']);
  });
});

describe('custom commands of the text protocols', () => {
  // A payload given as hex has no place in a text command: refused (400 at the API), never sent as an empty command.
  it.each(['gt06', 'h02', 'gl200', 'gps103', 'meitrack', 'suntech', 'tk103', 'wialon'])('%s refuses hex', (protocol) => {
    expect(() => encodeCommand(protocol, 'custom', 1, { hex: 'aa00', identity: '123456789012345' })).toThrow(/custom commands are text/);
  });
});
