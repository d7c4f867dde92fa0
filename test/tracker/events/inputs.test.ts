// What accounts may write as rule inputs: geofence shapes and rule conditions, checked as tables.
import { describe, expect, it } from '@jest/globals';
import { conditionHolds, conditionProblem } from '../../../tracker/custom-rules/condition.js';
import { TimeWindow, windowMatcher } from '../../../tracker/custom-rules/time-window.js';
import { Shape, containsFn } from '../../../tracker/geofences/shape.js';

const p = (lat: number, lng: number) => ({ lat, lng });
const square = [p(0, 0), p(0, 1), p(1, 1), p(1, 0), p(0, 0)];
const problem = (shape: unknown) => {
  const r = Shape.safeParse(shape);
  return r.success ? null : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
};

describe('geofence shapes', () => {
  it.each<[string, unknown, RegExp | null]>([
    ['a circle', { type: 'circle', center: p(52.5, 13.4), radius: 150 }, null],
    ['a square', { type: 'polygon', points: square }, null],
    ['a repeated point is tolerated', { type: 'polygon', points: [p(0, 0), p(0, 1), p(0, 1), p(1, 1), p(1, 0), p(0, 0)] }, null],
    ['radius 0', { type: 'circle', center: p(0, 0), radius: 0 }, /radius: must be greater than 0/],
    ['negative radius', { type: 'circle', center: p(0, 0), radius: -5 }, /radius: must be greater than 0/],
    ['radius too large', { type: 'circle', center: p(0, 0), radius: 100_001 }, /radius: must be at most 100000 metres/],
    ['latitude out of range', { type: 'circle', center: p(91, 0), radius: 10 }, /center\.lat/],
    ['longitude out of range', { type: 'polygon', points: [p(0, 0), p(0, 181), p(1, 1), p(0, 0)] }, /points\.1\.lng/],
    ['not closed', { type: 'polygon', points: square.slice(0, 4) }, /not closed/],
    ['crossing itself (a bow tie)', { type: 'polygon', points: [p(0, 0), p(1, 1), p(1, 0), p(0, 1), p(0, 0)] }, /crosses itself/],
    ['too few corners', { type: 'polygon', points: [p(0, 0), p(1, 1), p(0, 0)] }, /at least 3 corners/],
    ['two distinct corners only', { type: 'polygon', points: [p(0, 0), p(1, 1), p(1, 1), p(0, 0)] }, /at least 3 distinct corners/],
    ['all on one line', { type: 'polygon', points: [p(0, 0), p(1, 1), p(2, 2), p(0, 0)] }, /no area/],
    ['across the antimeridian', { type: 'polygon', points: [p(0, 179), p(0, -179), p(1, -179), p(1, 179), p(0, 179)] }, /antimeridian/],
    ['too many points', { type: 'polygon', points: [...Array.from({ length: 1000 }, (_, i) => p(Math.sin(i) , i / 1000)), p(Math.sin(0), 0)] }, /at most 1000 points/],
    ['an unknown type', { type: 'square', center: p(0, 0) }, /type/],
    ['unknown fields', { type: 'circle', center: p(0, 0), radius: 5, colour: 'red' }, /colour|Unrecognized/i],
  ])('%s', (_name, shape, expected) => {
    const found = problem(shape);
    if (expected === null) expect(found).toBeNull();
    else expect(found).toMatch(expected);
  });

  it('points on the edge are inside; a circle measures metres on the ground', () => {
    const inSquare = containsFn({ type: 'polygon', points: square });
    expect([inSquare(0.5, 0.5), inSquare(0, 0.5), inSquare(1.5, 0.5), inSquare(-0.0001, 0.5)]).toEqual([true, true, false, false]);
    const circle = containsFn({ type: 'circle', center: p(60, 10), radius: 1000 });
    // At 60° north a degree of longitude is about 55.8 km: 0.017° ≈ 950 m, 0.019° ≈ 1060 m.
    expect([circle(60, 10.017), circle(60, 10.019), circle(60.0089, 10), circle(60.0091, 10)]).toEqual([true, false, true, false]);
  });
});

describe('rule conditions', () => {
  it.each<[string, unknown, RegExp | null]>([
    ['comparison and logic', { and: [{ '>': [{ var: 'speed' }, 80] }, { '==': [{ var: 'attributes.ignition' }, true] }] }, null],
    ['arithmetic and strings', { '>': [{ '*': [{ var: 'attributes.fuelLevel' }, 2] }, { max: [10, 20] }] }, null],
    ['a var with a default', { '<': [{ var: ['attributes.temp1', 0] }, -20] }, null],
    ['not an object', [1, 2], /JSON Logic object/],
    ['two operators in one object', { '>': [1, 0], '<': [0, 1] }, /exactly one operator/],
    ['an unknown operator', { eval: ['1'] }, /unsupported operator "eval"/],
    ['log is not allowed', { log: [1] }, /unsupported operator "log"/],
    ['loops over arrays are not allowed', { some: [[1, 2], { '>': [{ var: '' }, 1] }] }, /unsupported operator "some"/],
    ['a prototype path', { '==': [{ var: 'attributes.__proto__' }, 1] }, /not allowed/],
    ['a constructor path', { '==': [{ var: 'constructor.name' }, 'Object'] }, /not allowed/],
    ['a prototype path in missing', { missing: ['a.prototype'] }, /not allowed/],
    ['a computed variable name', { '==': [{ var: { cat: ['constructor.na', 'me'] } }, 'Object'] }, /literal strings/],
    ['a computed name in a var with a default', { '==': [{ var: [{ cat: ['__pro', 'to__'] }, 0] }, 1] }, /literal strings/],
    ['a computed default', { '==': [{ var: ['speed', { var: 'constructor' }] }, 1] }, /literal default/],
    ['a computed name in missing', { missing: [{ cat: ['constructor', '.name'] }] }, /literal strings/],
    ['a computed name in missing_some', { missing_some: [1, [{ cat: ['__proto__', ''] }]] }, /literal strings/],
    ['missing_some with literal names', { missing_some: [1, ['speed', 'attributes.fuel']] }, null],
    ['too deep', Array.from({ length: 20 }).reduce<object>((inner) => ({ '!': [inner] }), { var: 'speed' }), /at most 12 levels/],
    ['too long', { in: ['x', 'y'.repeat(5000)] }, /at most 4096 characters/],
  ])('%s', (_name, condition, expected) => {
    const found = conditionProblem(condition);
    if (expected === null) expect(found).toBeNull();
    else expect(found).toMatch(expected);
  });

  it('evaluates over position fields and attributes', () => {
    const data = { speed: 90, attributes: { ignition: true, io: { 239: 1 } } };
    expect(conditionHolds({ and: [{ '>': [{ var: 'speed' }, 80] }, { var: 'attributes.ignition' }] }, data)).toBe(true);
    expect(conditionHolds({ '==': [{ var: 'attributes.io.239' }, 1] }, data)).toBe(true);
    expect(conditionHolds({ '<': [{ var: 'speed' }, 80] }, data)).toBe(false);
  });

  it('finds nothing on a prototype, even through a condition that was never checked', () => {
    const data = { speed: 90, attributes: { ignition: true } };
    expect(conditionHolds({ '==': [{ var: { cat: ['constructor.na', 'me'] } }, 'Object'] }, data)).toBe(false);
    expect(conditionHolds({ '==': [{ var: 'attributes.constructor.name' }, 'Object'] }, data)).toBe(false);
    expect(conditionHolds({ '!!': [{ var: 'attributes.hasOwnProperty' }] }, data)).toBe(false);
  });
});

describe('time windows', () => {
  const at = (iso: string) => Date.parse(iso);
  it.each<[string, unknown, string, boolean]>([
    ['office hours in Berlin (winter, UTC+1)', { from: '08:00', to: '17:00', timeZone: 'Europe/Berlin' }, '2026-11-23T07:30:00Z', true],
    ['before office hours', { from: '08:00', to: '17:00', timeZone: 'Europe/Berlin' }, '2026-11-23T06:59:00Z', false],
    ['the end is exclusive', { from: '08:00', to: '17:00', timeZone: 'UTC' }, '2026-11-23T17:00:00Z', false],
    ['overnight, after midnight', { from: '22:00', to: '06:00', timeZone: 'UTC' }, '2026-11-23T03:00:00Z', true],
    ['overnight, at noon', { from: '22:00', to: '06:00', timeZone: 'UTC' }, '2026-11-23T12:00:00Z', false],
    ['weekdays only, on a Sunday', { days: ['mon', 'tue', 'wed', 'thu', 'fri'], from: '00:00', to: '23:59', timeZone: 'UTC' }, '2026-11-22T12:00:00Z', false],
    ['the local day counts (Sunday 23:30 UTC is Monday in Tokyo)', { days: ['mon'], from: '00:00', to: '12:00', timeZone: 'Asia/Tokyo' }, '2026-11-22T23:30:00Z', true],
  ])('%s', (_name, window, time, expected) => {
    expect(windowMatcher(TimeWindow.parse(window))(at(time))).toBe(expected);
  });

  it.each<[unknown, RegExp]>([
    [{ from: '8:00', to: '17:00' }, /HH:MM/],
    [{ from: '08:00', to: '24:00' }, /HH:MM/],
    [{ from: '08:00', to: '08:00' }, /must differ/],
    [{ from: '08:00', to: '17:00', timeZone: 'Mars/Olympus' }, /IANA time zone/],
    [{ from: '08:00', to: '17:00', days: ['monday'] }, /days/],
  ])('refuses %j', (window, expected) => {
    const r = TimeWindow.safeParse(window);
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')).toMatch(expected);
  });
});
