// Seeded fuzzing: valid frames are mutated (bit flips, truncation, extension, length-field
// damage, splicing) or replaced by random bytes, then pushed through framer and decoder.
// Nothing may throw, every decoded position must carry finite numbers, and valid OsmAnd reports
// in the mix must decode to their fix.
import { describe, expect, it } from '@jest/globals';
import { gl200 } from '../../../tracker/protocols/gl200/index.js';
import { gps103 } from '../../../tracker/protocols/gps103/index.js';
import { gt06 } from '../../../tracker/protocols/gt06/index.js';
import { h02 } from '../../../tracker/protocols/h02/index.js';
import { meitrack } from '../../../tracker/protocols/meitrack/index.js';
import { jt808 } from '../../../tracker/protocols/jt808/index.js';
import { osmand } from '../../../tracker/protocols/osmand/index.js';
import { suntech } from '../../../tracker/protocols/suntech/index.js';
import { ruptela } from '../../../tracker/protocols/ruptela/index.js';
import { teltonika } from '../../../tracker/protocols/teltonika/index.js';
import { wialon } from '../../../tracker/protocols/wialon/index.js';
import type { DecodeResult, Protocol } from '../../../tracker/protocols/types.js';
import { gl200Alarm, gl200Binary, gl200CommandAck, gl200Heartbeat, gl200Position } from '../../../tracker/simulator/frames/gl200.js';
import { tk103 } from '../../../tracker/protocols/tk103/index.js';
import { gps103Alarm, gps103CellReport, gps103Handshake, gps103Heartbeat, gps103Position } from '../../../tracker/simulator/frames/gps103.js';
import { gt06Alarm, gt06CommandReply, gt06Heartbeat, gt06Login, gt06Position, gt06PositionLegacy } from '../../../tracker/simulator/frames/gt06.js';
import { h02Binary, h02CommandReply, h02Heartbeat, h02Position } from '../../../tracker/simulator/frames/h02.js';
import { meitrackAlarm, meitrackCommandReply, meitrackHeartbeat, meitrackPosition } from '../../../tracker/simulator/frames/meitrack.js';
import { jt808Auth, jt808CommandAnswer, jt808Heartbeat, jt808Position, jt808Register } from '../../../tracker/simulator/frames/jt808.js';
import { osmandJson, osmandQuery } from '../../../tracker/simulator/frames/osmand.js';
import { suntechAlarm, suntechCommandReply, suntechHeartbeat, suntechPosition } from '../../../tracker/simulator/frames/suntech.js';
import { ruptelaCommandReply, ruptelaHeartbeat, ruptelaIdentification, ruptelaPosition, ruptelaRecord, ruptelaRecords } from '../../../tracker/simulator/frames/ruptela.js';
import { teltonikaAvl, teltonikaCommandResponse, teltonikaHandshake, teltonikaRecord } from '../../../tracker/simulator/frames/teltonika.js';
import { wialonBlackBox, wialonLogin, wialonMessage, wialonPosition, wialonShortPosition } from '../../../tracker/simulator/frames/wialon.js';
import { tk103Alarm, tk103Handshake, tk103LocateReply, tk103Login, tk103Position } from '../../../tracker/simulator/frames/tk103.js';
import { prng } from './helpers.js';

const ITERATIONS = 100_000;
const fix = { time: new Date('2022-09-10T11:12:13Z'), lat: 51.5007, lng: -0.1246, speed: 40, heading: 300, altitude: 20, satellites: 7 };

const seeds: Record<string, { protocol: Protocol; frames: Buffer[] }> = {
  gt06: {
    protocol: gt06,
    frames: [
      gt06Login('123456789012345'),
      gt06Position(fix, { ignition: true }),
      gt06PositionLegacy(fix),
      gt06Heartbeat(),
      gt06Alarm(fix, 'sos'),
      gt06CommandReply('Current position!Lat:N1.0,Lon:E2.0,Course:3.00,Speed:4.00Km/h,DateTime:2020-01-02 03:04:05', 1),
    ],
  },
  teltonika: {
    protocol: teltonika,
    frames: [
      teltonikaHandshake('123456789012345'),
      teltonikaAvl([teltonikaRecord(fix, { ignition: true, fuelLevel: 10, power: 12 })]),
      teltonikaAvl([teltonikaRecord(fix), { fix, io: [{ id: 300, value: Buffer.from('abcdef', 'hex') }] }], 0x8e),
      teltonikaCommandResponse('GPS:1 Sat:7'),
    ],
  },
  h02: {
    protocol: h02,
    frames: [
      h02Position('7712340001', fix, { ignition: true }),
      h02Heartbeat('7712340001'),
      h02CommandReply('7712340001', 'S20', ['DONE'], fix),
      h02Binary('7712340001', fix),
      Buffer.from('*hq,864502031234567,VP1,A,3351.1200,S,15112.5600,E,1.20,90.0000,150224#', 'latin1'),
    ],
  },
  suntech: {
    protocol: suntech,
    frames: [
      suntechPosition('0912345678', fix, { ignition: true }),
      suntechAlarm('0912345678', fix, 'sos'),
      suntechHeartbeat('0912345678'),
      suntechCommandReply('0912345678', '03;01;OK'),
      Buffer.from('ST300STT;812345678;04;408;20240311;09:15:30;1a2b3;-23.550520;-046.633310;052.400;181.50;9;1;123456;12.60;100010;1;0042;003188;4.1;1\r', 'latin1'),
    ],
  },
  meitrack: {
    protocol: meitrack,
    frames: [
      meitrackPosition('861234567890123', fix, { ignition: true }),
      meitrackAlarm('861234567890123', fix, 'sos'),
      meitrackHeartbeat('861234567890123'),
      meitrackCommandReply('861234567890123', 'C01,OK'),
    ],
  },
  ruptela: {
    protocol: ruptela,
    frames: [
      ruptelaIdentification('356307042441013'),
      ruptelaPosition('356307042441013', fix, { ignition: true, power: 12.4, fuelLevel: 40 }),
      ruptelaRecords('356307042441013', [ruptelaRecord(fix, [new Map([[5, 1]]), new Map([[78, 215]]), new Map([[65, 1000]]), new Map([[126, 0x4142434445464748n], [127, 0x494a4b4c4d4e4f50n]])], false)], 1),
      ruptelaHeartbeat('356307042441013'),
      ruptelaCommandReply('356307042441013', 'Immobilizer on'),
    ],
  },
  wialon: {
    protocol: wialon,
    frames: [
      wialonLogin('861230043209218'),
      wialonPosition(fix, { ignition: true, power: 12.4, alarm: 'sos' }),
      wialonShortPosition(fix, '1.1'),
      wialonBlackBox([fix, fix]),
      wialonMessage('done'),
      Buffer.from('#D#NA;NA;NA;NA;NA;NA;NA;NA;NA;NA;NA;NA;NA;;NA;mcc:1:244,mnc:1:5,lac:1:4101,cell_id:1:30211,temp:1:-3\r\n', 'latin1'),
    ],
  },
  gl200: {
    protocol: gl200,
    frames: [
      gl200Position('864502031234567', fix, { power: 12.6, batteryLevel: 80 }),
      gl200Alarm('864502031234567', fix, 'sos'),
      gl200Heartbeat('864502031234567', fix.time),
      gl200CommandAck('864502031234567', 'RTO', '0001', fix.time),
      gl200Binary('+RSP', '864502031234567', [fix, fix], { power: 12.6 }),
      gl200Binary('+EVT', '864502031234567', [fix]),
    ],
  },
  jt808: {
    protocol: jt808,
    frames: [
      jt808Register('864507033191520'),
      jt808Auth('864507033191520', '864507033191520'),
      jt808Heartbeat('864507033191520'),
      jt808Position('864507033191520', fix, { ignition: true, fuelLevel: 30, alarm: 'sos' }),
      jt808CommandAnswer('864507033191520', 5, 0x8105),
      Buffer.from('(864507033191520,1,001,ELOCK,3,OK)', 'latin1'),
    ],
  },
  gps103: {
    protocol: gps103,
    frames: [
      gps103Handshake('123456789012345'),
      gps103Heartbeat('123456789012345'),
      gps103Position('123456789012345', fix, { ignition: true, fuelLevel: 20 }),
      gps103Alarm('123456789012345', fix, 'sos'),
      gps103CellReport('123456789012345', fix.time, 0x10, 0x20),
      Buffer.from('imei:123456789012345,OBD,220910111213,1000,1.5,8.2,12,60,30.0%,+80,10.0%,2000,13.8,P0300,,;', 'latin1'),
      Buffer.from('imei:123456789012345,Unit,---,------,----,111213,100922,20,1,51.50070,-0.12460,040,300,0020,0.9,07,1,0,---,*', 'latin1'),
    ],
  },
  tk103: {
    protocol: tk103,
    frames: [
      tk103Handshake('012345678901'),
      tk103Login('012345678901', '123456789012345', fix),
      tk103Position('012345678901', fix, { ignition: true }),
      tk103Alarm('012345678901', fix, 'sos'),
      tk103LocateReply('012345678901', fix),
      Buffer.from('(123456789012345,DW30,100922,A,5130.04200N,00007.47600W,40.0,111213,300.00,20.0,7)', 'latin1'),
      Buffer.from('(123456789012345,DW51,234,15,6699,15437,1,a0:b1:c2:d3:e4:f5*-61*6,100922,111213)', 'latin1'),
      Buffer.from('(123456789012345,ZC03,100922,111213,$OK (done)$)', 'latin1'),
      Buffer.from('(012345678901BS51,90:F401E0019475E803,91:100E0CE40C03,96:01424344)', 'latin1'),
    ],
  },
};

function mutate(rand: () => number, frames: Buffer[]): Buffer {
  const pick = frames[Math.floor(rand() * frames.length)]!;
  const int = (n: number) => Math.floor(rand() * n);
  switch (int(7)) {
    case 0: {
      const out = Buffer.from(pick);
      for (let k = 1 + int(4); k > 0; k--) out[int(out.length)] = int(256);
      return out;
    }
    case 1:
      return pick.subarray(0, int(pick.length));
    case 2:
      return Buffer.concat([pick, randomBytes(rand, int(64))]);
    case 3: {
      // Damage the length fields specifically.
      const out = Buffer.from(pick);
      for (const at of [2, 3, 4, 5, 6, 7]) if (rand() < 0.4 && at < out.length) out[at] = int(256);
      return out;
    }
    case 4: {
      const other = frames[int(frames.length)]!;
      return Buffer.concat([pick.subarray(0, int(pick.length)), other.subarray(int(other.length))]);
    }
    case 5: {
      const out = Buffer.from(pick);
      out.fill(rand() < 0.5 ? 0x00 : 0xff, int(out.length));
      return out;
    }
    default:
      return Buffer.concat([pick.subarray(0, 4), randomBytes(rand, int(300))]);
  }
}

// Random bytes come from a seeded pool: drawing every byte from the PRNG is needlessly slow.
const POOL = (() => {
  const rand = prng(7);
  const pool = Buffer.alloc(1 << 16);
  for (let i = 0; i < pool.length; i += 4) pool.writeUInt32LE(Math.floor(rand() * 2 ** 32), i);
  return pool;
})();

function randomBytes(rand: () => number, n: number): Buffer {
  const at = Math.floor(rand() * (POOL.length - n));
  return Buffer.from(POOL.subarray(at, at + n));
}

function checkResult(r: DecodeResult): void {
  for (const p of r.positions) {
    for (const v of [p.lat, p.lng, p.speed, p.heading, p.deviceTime.getTime()]) {
      if (!Number.isFinite(v)) throw new Error(`non-finite value in ${JSON.stringify(p)}`);
    }
  }
}

describe.each(Object.entries(seeds))('%s fuzz', (name, { protocol, frames }) => {
  it(`survives ${ITERATIONS} mutated and random frames`, () => {
    const rand = prng(0xc0ffee ^ name.length);
    const protocolState = { state: {} };
    let framer = protocol.createFramer(1024);
    let decoded = 0;
    for (let i = 0; i < ITERATIONS; i++) {
      const input = rand() < 0.1 ? randomBytes(rand, Math.floor(rand() * 200)) : mutate(rand, frames);
      // Straight to the decoder, as if the framer had let it through…
      checkResult(protocol.decode(input, protocolState));
      // …and through the framer in random chunks.
      let at = 0;
      while (at < input.length) {
        const size = 1 + Math.floor(rand() * input.length);
        for (const frame of framer.push(input.subarray(at, at + size))) {
          if (frame.length > 1024) throw new Error(`frame of ${frame.length} bytes passed the cap`);
          checkResult(protocol.decode(frame, protocolState));
          decoded++;
        }
        at += size;
      }
      if (i % 1000 === 999) framer = protocol.createFramer(1024);
    }
    expect(decoded).toBeGreaterThan(1000);
  });
});

describe('osmand fuzz', () => {
  it(`survives ${ITERATIONS} mutated queries and bodies, and decodes the valid reports among them`, () => {
    const rand = prng(42);
    const query = osmandQuery('1', fix, { batteryLevel: 50, ignition: true });
    const keys = Object.keys(query);
    const junk = ['', '-', 'NaN', '1e999', '91', '-181', 'abc', '2020-13-45', '0x10', ' ', ',', '1,2,3', 'null'];
    const now = new Date();
    /** Valid reports (junk only in keys the decoder keeps as attributes) that did not decode to the fix. */
    const misread: unknown[] = [];
    let valid = 0;
    const expectFix = (r: ReturnType<typeof osmand.decode>, input: unknown) => {
      valid++;
      const p = 'error' in r || r.identity !== '1' || r.positions.length !== 1 ? undefined : r.positions[0];
      if (!p || p.deviceTime.getTime() !== fix.time.getTime() || Math.abs(p.lat - fix.lat) > 1e-6 || Math.abs(p.lng - fix.lng) > 1e-6) misread.push({ input, r });
    };
    for (let i = 0; i < ITERATIONS; i++) {
      const keepValid = rand() < 0.2;
      if (rand() < 0.7) {
        const q: Record<string, string> = { ...query };
        for (let k = Math.floor(rand() * 4); k >= 0; k--) {
          const key = keepValid ? `extra${k}` : rand() < 0.8 ? keys[Math.floor(rand() * keys.length)]! : 'location';
          q[key] = junk[Math.floor(rand() * junk.length)]!;
        }
        if (!keepValid && rand() < 0.1) delete q.id;
        const r = osmand.decode(q, now);
        if (!('error' in r)) r.positions.forEach((p) => checkResult({ positions: [p] }));
        if (keepValid) expectFix(r, q);
      } else {
        const body = osmandJson('1', fix) as Record<string, unknown>;
        const loc = body.location as Record<string, unknown>;
        const coords = loc.coords as Record<string, unknown>;
        const values: unknown[] = [null, undefined, 'x', -1, 1e9, {}, [], true, '2020-01-01'];
        const v = () => values[Math.floor(rand() * values.length)];
        if (keepValid) {
          loc.extras = { note: v(), level: v() };
          if (rand() < 0.5) coords.speed = -1; // "unknown" in Traccar Client
        } else {
          if (rand() < 0.3) coords.latitude = v();
          if (rand() < 0.3) coords.speed = v();
          if (rand() < 0.3) loc.timestamp = v();
          if (rand() < 0.2) loc.battery = v();
          if (rand() < 0.2) loc.extras = v();
          if (rand() < 0.1) body.location = v();
          if (rand() < 0.1) body.device_id = v();
        }
        const r = osmand.decode(body, now);
        if (!('error' in r)) r.positions.forEach((p) => checkResult({ positions: [p] }));
        if (keepValid) expectFix(r, body);
      }
    }
    expect(valid).toBeGreaterThan(ITERATIONS / 10);
    expect(misread.slice(0, 3)).toEqual([]);
  });
});
