// The protocol registry and the settings agree: every TCP protocol the tracker speaks has its own
// port setting (Traccar's port by default), and no setting names a protocol it does not speak.
// On the shared device port each protocol's first frames are claimed by its own detector only.
import { describe, expect, test } from '@jest/globals';
import { parseTrackerConfig, PROTOCOL_PORTS, portSetting } from '../../../shared/config.js';
import { PROTOCOLS } from '../../../tracker/protocols/registry.js';
import { gl200Heartbeat, gl200Position } from '../../../tracker/simulator/frames/gl200.js';
import { gps103Handshake, gps103Heartbeat, gps103Position } from '../../../tracker/simulator/frames/gps103.js';
import { gt06Login, gt06Position } from '../../../tracker/simulator/frames/gt06.js';
import { h02Binary, h02Position } from '../../../tracker/simulator/frames/h02.js';
import { jt808Register } from '../../../tracker/simulator/frames/jt808.js';
import { meitrackHeartbeat, meitrackPosition } from '../../../tracker/simulator/frames/meitrack.js';
import { ruptelaIdentification, ruptelaPosition } from '../../../tracker/simulator/frames/ruptela.js';
import { suntechHeartbeat, suntechPosition } from '../../../tracker/simulator/frames/suntech.js';
import { teltonikaHandshake } from '../../../tracker/simulator/frames/teltonika.js';
import { tk103Handshake, tk103Login, tk103Position } from '../../../tracker/simulator/frames/tk103.js';
import { wialonLogin, wialonShortPosition } from '../../../tracker/simulator/frames/wialon.js';

describe('protocol ports', () => {
  test('each TCP protocol has exactly one port setting, and each setting a protocol', () => {
    expect(Object.keys(PROTOCOL_PORTS).sort()).toEqual(PROTOCOLS.map((p) => p.name).sort());
  });

  test("a protocol's port defaults to Traccar's and 0 turns it off", () => {
    const defaults = parseTrackerConfig({}) as unknown as Record<string, number>;
    for (const [name, port] of Object.entries(PROTOCOL_PORTS)) expect([name, defaults[portSetting(name)]]).toEqual([name, port]);
    const off = parseTrackerConfig({ GT06_PORT: '0' }) as unknown as Record<string, number>;
    expect(off.GT06_PORT).toBe(0);
    expect(() => parseTrackerConfig({ H02_PORT: '70000' })).toThrow(/H02_PORT/);
  });
});

const fix = { time: new Date('2024-01-02T03:04:05Z'), lat: 48.85, lng: 2.35, speed: 30, heading: 45 };

/** The frames each protocol's units open a connection with. */
const FIRST_FRAMES: Record<string, Buffer[]> = {
  gt06: [gt06Login('123456789012345'), gt06Position(fix)],
  teltonika: [teltonikaHandshake('123456789012345')],
  h02: [h02Position('4210058099', fix), h02Binary('4210058099', fix)],
  suntech: [suntechPosition('0912345678', fix), suntechHeartbeat('0912345678'), Buffer.from('ST300STT;812345678;04;408;20240311;09:15:30;1a2b3;', 'latin1')],
  meitrack: [meitrackPosition('861234567890123', fix), meitrackHeartbeat('861234567890123')],
  ruptela: [ruptelaIdentification('356307042441013'), ruptelaPosition('356307042441021', fix)],
  wialon: [wialonLogin('861230043209218'), wialonLogin('4405', 'NA', '1.1'), wialonShortPosition(fix, '1.1')],
  jt808: [jt808Register('864507033191520')],
  gps103: [gps103Handshake('864502031234567'), gps103Heartbeat('864502031234567'), gps103Position('864502031234567', fix)],
  tk103: [tk103Handshake('013912345678'), tk103Login('013912345678', '359710012345678', fix), tk103Position('013912345678', fix)],
  gl200: [gl200Position('864502031234567', fix), gl200Heartbeat('864502031234567', fix.time), Buffer.from('+EVT\x0c\x00\xfc\x1f', 'latin1')],
};

/**
 * Detectors that also claim another protocol's first frames, and so are asked after it: H02 takes
 * any '$', which Meitrack's '$$' frames start with too.
 */
const ASKED_AFTER: Record<string, string[]> = { meitrack: ['h02'] };

describe('device port autodetect', () => {
  test.each(Object.entries(FIRST_FRAMES))("%s's first frames pick it, and only a detector asked after it claims them too", (name, frames) => {
    for (const frame of frames) {
      expect(PROTOCOLS.find((p) => p.detect(frame))?.name).toBe(name);
      expect(PROTOCOLS.filter((p) => p.name !== name && p.detect(frame)).map((p) => p.name)).toEqual(ASKED_AFTER[name] ?? []);
    }
  });
});
