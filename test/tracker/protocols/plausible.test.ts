// The plausibility check every decoded position passes before storage, table-driven, and the hostile
// device builders checked against the real decoders: each hostile report decodes (it is well-formed)
// and the check refuses it for the reason it was built for.
import { describe, expect, test } from '@jest/globals';
import { implausible, plausibleTelemetry, type PlausibleLimits } from '../../../tracker/positions/plausible.js';
import type { Telemetry } from '../../../tracker/positions/telemetry.js';
import { gt06 } from '../../../tracker/protocols/gt06/index.js';
import { h02 } from '../../../tracker/protocols/h02/index.js';
import { decodeOsmAnd } from '../../../tracker/protocols/osmand/index.js';
import { ruptela } from '../../../tracker/protocols/ruptela/index.js';
import { teltonika } from '../../../tracker/protocols/teltonika/index.js';
import { wialon } from '../../../tracker/protocols/wialon/index.js';
import type { DecodedPosition } from '../../../tracker/protocols/types.js';
import { hostileGt06, hostileH02, hostileOsmAnd, hostileRuptela, hostileTeltonika, hostileWialon, HOSTILE_KINDS, sensibleFix } from '../../helpers/hostile-device.js';
import { protocolState } from './helpers.js';

const NOW = Date.parse('2026-11-23T12:00:00Z');
const limits: PlausibleLimits = { earliest: new Date('2000-01-01T00:00:00Z'), maxFutureMs: 86_400_000 };
const base: DecodedPosition = { deviceTime: new Date(NOW - 60_000), valid: true, lat: 38.7, lng: -9.1, speed: 50, heading: 90, altitude: 80, satellites: 9, attributes: { io: { 16: 1234 }, batteryLevel: 80 } };

describe('implausible', () => {
  test.each<[string, Partial<DecodedPosition>, string | null]>([
    ['a sensible fix', {}, null],
    ['the poles and the antimeridian', { lat: -90, lng: 180 }, null],
    ['a day ahead of the clock', { deviceTime: new Date(NOW + 86_400_000) }, null],
    ['more than a day ahead', { deviceTime: new Date(NOW + 86_400_001) }, 'time'],
    ['before 2000', { deviceTime: new Date('1999-12-31T23:59:59Z') }, 'time'],
    ['an invalid date', { deviceTime: new Date(Number.NaN) }, 'time'],
    ['the year 200000', { deviceTime: new Date(6_250_000_000_000_000) }, 'time'],
    ['latitude past a pole', { lat: 90.0001 }, 'latitude'],
    ['NaN latitude', { lat: Number.NaN }, 'latitude'],
    ['longitude past the antimeridian', { lng: -180.5 }, 'longitude'],
    ['a speed of 1e307', { speed: 1e307 }, 'speed'],
    ['an infinite speed', { speed: Infinity }, 'speed'],
    ['a negative speed', { speed: -1 }, 'speed'],
    ['a NaN heading', { heading: Number.NaN }, 'heading'],
    ['an altitude of 1e300', { altitude: 1e300 }, 'altitude'],
    ['an altitude below -20 km', { altitude: -20_001 }, 'altitude'],
    ['70 000 satellites', { satellites: 70_000 }, 'satellites'],
    ['a NaN attribute', { attributes: { batteryLevel: Number.NaN } }, 'attribute'],
    ['an infinite nested attribute', { attributes: { io: { 9: -Infinity } } }, 'attribute'],
  ])('%s', (_name, change, reason) => {
    expect(implausible({ ...base, ...change }, limits, NOW)).toBe(reason);
  });

  test('the earliest time and the future allowance are settings', () => {
    const strict: PlausibleLimits = { earliest: new Date(NOW - 3_600_000), maxFutureMs: 0 };
    expect(implausible({ ...base, deviceTime: new Date(NOW - 3_600_001) }, strict, NOW)).toBe('time');
    expect(implausible({ ...base, deviceTime: new Date(NOW + 1) }, strict, NOW)).toBe('time');
    expect(implausible({ ...base, deviceTime: new Date(NOW) }, strict, NOW)).toBeNull();
  });

  test('attribute values are checked against the telemetry vocabulary', () => {
    expect(plausibleTelemetry({ ignition: true, fuel: 41.5, alarm: 'powerCut,sos', temp2: -4.5, in1: false, io: { 200: 'ab01', x: true } })).toBe(true);
    // What the types refuse at compile time, a value computed at run time can still be.
    for (const wrong of [{ ignition: 'yes' }, { temp1: true }, { alarm: 'sos,panic' }, { rssi: 3.5 }, { fule: 40 }, { io: { deep: { n: 1 } } }]) {
      expect(plausibleTelemetry(wrong as Telemetry)).toBe(false);
    }
  });
});

describe('hostile device builders decode to the hostile value they were built for', () => {
  const check = (positions: DecodedPosition[]) => positions.map((p) => implausible(p, limits));

  test('GT06', () => {
    expect(check(gt06.decode(hostileGt06('time'), protocolState('359633100000001')).positions)).toEqual(['time']);
  });

  test('Teltonika: one packet, sensible records first', () => {
    expect(check(teltonika.decode(hostileTeltonika(HOSTILE_KINDS.teltonika, 2), protocolState('359633100000001')).positions)).toEqual([null, null, ...HOSTILE_KINDS.teltonika]);
  });

  test.each(HOSTILE_KINDS.h02)('H02 %s', (kind) => {
    expect(check(h02.decode(hostileH02('4210051415', kind), protocolState()).positions)).toEqual([kind]);
  });

  test.each(HOSTILE_KINDS.osmand)('OsmAnd %s: refused by the decoder or by the check', (kind) => {
    const decoded = decodeOsmAnd(hostileOsmAnd('359633100000001', kind));
    if (!decoded.ok) expect(decoded.error).toContain(kind);
    else expect(check(decoded.positions)).toEqual([kind]);
  });

  test.each(HOSTILE_KINDS.ruptela)('Ruptela %s', (kind) => {
    expect(check(ruptela.decode(hostileRuptela('356307042441013', kind), protocolState()).positions)).toEqual([kind]);
  });

  test.each(HOSTILE_KINDS.wialon)('Wialon IPS %s', (kind) => {
    expect(check(wialon.decode(hostileWialon(kind), protocolState('861230043209218')).positions)).toEqual([kind]);
  });

  test('the sensible fix passes', () => {
    const fix = sensibleFix();
    expect(implausible({ deviceTime: fix.time, valid: true, lat: fix.lat, lng: fix.lng, speed: fix.speed, heading: fix.heading, altitude: fix.altitude!, attributes: {} }, limits)).toBeNull();
  });
});
