import { describe, expect, it } from '@jest/globals';
import { gps103 } from '../../../tracker/protocols/gps103/index.js';
import { gt06 } from '../../../tracker/protocols/gt06/index.js';
import { h02 } from '../../../tracker/protocols/h02/index.js';
import { meitrack } from '../../../tracker/protocols/meitrack/index.js';
import { teltonika } from '../../../tracker/protocols/teltonika/index.js';
import { tk103 } from '../../../tracker/protocols/tk103/index.js';
import type { Protocol } from '../../../tracker/protocols/types.js';
import { gps103Alarm, gps103CellReport, gps103Handshake, gps103Heartbeat, gps103Position } from '../../../tracker/simulator/frames/gps103.js';
import { gt06CommandReply, gt06Heartbeat, gt06Login, gt06Position } from '../../../tracker/simulator/frames/gt06.js';
import { h02Binary, h02Heartbeat, h02Position } from '../../../tracker/simulator/frames/h02.js';
import { meitrackCommandReply, meitrackHeartbeat, meitrackPosition } from '../../../tracker/simulator/frames/meitrack.js';
import { teltonikaAvl, teltonikaHandshake, teltonikaRecord } from '../../../tracker/simulator/frames/teltonika.js';
import { tk103Alarm, tk103Handshake, tk103Login, tk103Position } from '../../../tracker/simulator/frames/tk103.js';

const fix = { time: new Date('2024-02-03T04:05:06Z'), lat: 48.8584, lng: 2.2945, speed: 12, heading: 33 };

const streams: Record<string, { protocol: Protocol; frames: Buffer[] }> = {
  gt06: {
    protocol: gt06,
    frames: [gt06Login('864502031234567'), gt06Position(fix, { ignition: true }, 2), gt06Heartbeat({}, 3), gt06CommandReply('OK', 1, 4)],
  },
  teltonika: {
    protocol: teltonika,
    frames: [teltonikaHandshake('864502031234567'), teltonikaAvl([teltonikaRecord(fix)]), Buffer.from([0xff]), teltonikaAvl([teltonikaRecord(fix), teltonikaRecord(fix)], 0x8e)],
  },
  h02: {
    protocol: h02,
    frames: [h02Position('7712340001', fix), h02Heartbeat('7712340001'), h02Position('7712340001', fix, { alarm: 'sos' })],
  },
  meitrack: {
    protocol: meitrack,
    frames: [meitrackPosition('861234567890123', fix), meitrackHeartbeat('861234567890123'), meitrackCommandReply('861234567890123', 'C01,OK')],
  },
  gps103: {
    protocol: gps103,
    frames: [gps103Handshake('864502031234567'), gps103Position('864502031234567', fix), gps103Heartbeat('864502031234567'), gps103Alarm('864502031234567', fix, 'sos'), gps103CellReport('864502031234567', fix.time, 0x1f, 0x2e)],
  },
  tk103: {
    protocol: tk103,
    frames: [tk103Handshake('013912345678'), tk103Login('013912345678', '359710012345678', fix), tk103Position('013912345678', fix), tk103Alarm('013912345678', fix, 'sos')],
  },
};

function feed(protocol: Protocol, chunks: Buffer[], max = 4096) {
  const framer = protocol.createFramer(max);
  const out = chunks.flatMap((c) => framer.push(c));
  return { out, skipped: framer.skipped };
}

describe.each(Object.entries(streams))('%s framer', (_name, { protocol, frames }) => {
  const all = Buffer.concat(frames);

  it('splits several frames delivered in one read', () => {
    expect(feed(protocol, [all]).out).toEqual(frames);
  });

  it('hands out frames that do not keep the read they came in, and a read that is one frame as it is', () => {
    const ownMemory = (b: Buffer) => Buffer.from(new Uint8Array(b).buffer); // as a socket reads: memory as long as what was read
    const read = ownMemory(all);
    for (const frame of feed(protocol, [read]).out) expect(frame.buffer).not.toBe(read.buffer);
    const alone = ownMemory(frames[0]!);
    expect(feed(protocol, [alone]).out).toEqual([frames[0]]);
  });

  it('reassembles frames delivered one byte at a time', () => {
    const bytes = [...all].map((b) => Buffer.from([b]));
    expect(feed(protocol, bytes).out).toEqual(frames);
  });

  it('reassembles frames split at every position', () => {
    for (let cut = 1; cut < all.length; cut++) {
      expect(feed(protocol, [all.subarray(0, cut), all.subarray(cut)]).out).toEqual(frames);
    }
  });

  it('skips garbage before and between frames and counts it', () => {
    const junk = Buffer.from('hello!!', 'latin1');
    const { out, skipped } = feed(protocol, [Buffer.concat([junk, frames[0]!, junk, ...frames.slice(1)])]);
    expect(out).toEqual(frames);
    expect(skipped).toBe(junk.length * 2);
  });

  it('passes only whole frames to the decoder, which never throws on them', () => {
    for (const frame of feed(protocol, [all]).out) {
      expect(() => protocol.decode(frame, { state: {} })).not.toThrow();
    }
  });

  it('detects the protocol from the first frame', () => {
    expect(protocol.detect(frames[0]!)).toBe(true);
  });
});

describe('oversize frames', () => {
  it('gt06: a declared length above the cap is skipped and the stream resyncs', () => {
    const huge = Buffer.alloc(3000, 0x11);
    huge.set([0x79, 0x79, 0x0b, 0xb4, 0x22]); // 79 79 with length 2996
    const good = gt06Position(fix);
    const { out, skipped } = feed(gt06, [huge, good], 256);
    expect(out).toEqual([good]);
    expect(skipped).toBe(huge.length);
  });

  it('teltonika: an AVL length above the cap is not buffered', () => {
    const header = Buffer.from('000000007fffff00', 'hex');
    const good = teltonikaAvl([teltonikaRecord(fix)]);
    const { out, skipped } = feed(teltonika, [header, good], 1024);
    expect(out).toEqual([good]);
    expect(skipped).toBe(header.length);
  });

  it('h02: a text message without its terminator within the cap is dropped', () => {
    const runaway = Buffer.from('*HQ,1,V1,' + 'x'.repeat(600), 'latin1');
    const good = h02Position('1', fix);
    const { out, skipped } = feed(h02, [runaway, good], 512);
    expect(out).toEqual([good]);
    expect(skipped).toBe(runaway.length);
  });

  it('gps103: a message without its terminator within the cap is dropped', () => {
    const runaway = Buffer.from('imei:864502031234567,tracker,' + '1'.repeat(600), 'latin1');
    const good = gps103Position('864502031234567', fix);
    const { out, skipped } = feed(gps103, [runaway, good], 512);
    expect(out).toEqual([good]);
    expect(skipped).toBe(runaway.length);
  });

  it('tk103: a frame without its closing parenthesis within the cap is dropped', () => {
    const runaway = Buffer.from('(013912345678BR00' + '0'.repeat(600), 'latin1');
    const good = tk103Position('013912345678', fix);
    const { out, skipped } = feed(tk103, [runaway, good], 512);
    expect(out).toEqual([good]);
    expect(skipped).toBe(runaway.length);
  });

  const floods: [string, Protocol, number, Buffer][] = [
    ['gps103', gps103, 0x31, gps103Position('864502031234567', fix)],
    ['tk103', tk103, 0x28, tk103Position('013912345678', fix)],
  ];
  it.each(floods)('%s: a long run of bytes that each could start a frame is skipped in linear time', (_name, protocol, byte, good) => {
    const started = Date.now();
    const chunks = Array.from({ length: 256 }, () => Buffer.alloc(4096, byte));
    const { out, skipped } = feed(protocol, [...chunks, Buffer.from(';)'), good], 65536);
    expect(out.at(-1)).toEqual(good);
    expect(skipped).toBeGreaterThan(1_000_000 - 65536);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

describe('gt06 irregular lengths', () => {
  it('a false header does not swallow the frame after it', () => {
    const bogus = Buffer.from([0x78, 0x78, 0x00, 0x11, 0x22]);
    const good = gt06Position(fix);
    const { out, skipped } = feed(gt06, [bogus, good]);
    expect(out).toEqual([good]);
    expect(skipped).toBe(bogus.length);
  });

  it('falls back to the terminator when the declared length does not fit', () => {
    const frame = gt06Position(fix);
    const lying = Buffer.from(frame);
    lying[2] = frame[2]! - 3; // declared end lands inside the body
    expect(feed(gt06, [lying, gt06Heartbeat()]).out[0]).toEqual(lying);
  });
});

describe('h02 binary length', () => {
  it('learns 32-byte binary messages from the next start marker', () => {
    const a = h02Binary('7712340001', fix);
    const b = h02Binary('7712340001', { ...fix, speed: 30 });
    expect(feed(h02, [Buffer.concat([a, b, a])]).out).toEqual([a, b, a]);
  });

  it('learns 45-byte extended messages', () => {
    const a = Buffer.concat([h02Binary('7712340001', fix), Buffer.alloc(13)]);
    expect(feed(h02, [Buffer.concat([a, a])]).out).toEqual([a, a]);
    expect(h02.decode(a, { state: {} }).positions).toHaveLength(1);
  });

  it("frames 32-byte 'X' messages whole between text and binary ones, and decodes nothing from them", () => {
    const x = Buffer.concat([Buffer.from('X', 'latin1'), h02Binary('7712340001', fix).subarray(1)]);
    const text = h02Position('7712340001', fix);
    const a = h02Binary('7712340001', fix);
    const { out, skipped } = feed(h02, [Buffer.concat([x, text, x, a])]);
    expect(out).toEqual([x, text, x, a]);
    expect(skipped).toBe(0);
    expect(h02.decode(x, { state: {} })).toEqual({ positions: [] });
  });
});
