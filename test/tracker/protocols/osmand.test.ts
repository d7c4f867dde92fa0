import { describe, expect, it } from '@jest/globals';
import { decodeOsmAnd, decodeOsmAndJson, decodeOsmAndQuery } from '../../../tracker/protocols/osmand/index.js';
import { osmandJson, osmandQuery, osmandQueryString } from '../../../tracker/simulator/frames/osmand.js';

const now = new Date('2024-01-01T00:00:00Z');
const fix = { time: new Date('2023-06-07T10:11:12Z'), lat: 59.437, lng: 24.7536, speed: 36, heading: 45, altitude: 30 };

describe('OsmAnd query form', () => {
  it('decodes the OsmAnd app parameters', () => {
    const r = decodeOsmAndQuery(
      { id: 'veh-42', timestamp: '1700000000', lat: '59.9', lon: '30.3', speed: '10', bearing: '90.5', altitude: '12', batt: '64', hdop: '1.2', alarm: 'sos' },
      now,
    );
    if (!r.ok) throw new Error(r.error);
    expect(r.identity).toBe('veh-42');
    const p = r.positions[0]!;
    expect(p.deviceTime.toISOString()).toBe('2023-11-14T22:13:20.000Z');
    expect(p).toMatchObject({ lat: 59.9, lng: 30.3, heading: 90.5, altitude: 12, valid: true });
    expect(p.speed).toBeCloseTo(18.52, 6);
    expect(p.attributes).toEqual({ batteryLevel: 64, hdop: 1.2, alarm: 'sos' });
  });

  it('accepts deviceid, location=lat,lon, millisecond and ISO timestamps', () => {
    const ms = decodeOsmAndQuery({ deviceid: '9', location: '-1.5,2.5', timestamp: '1700000000123' }, now);
    expect(ms.ok && ms.positions[0]!.deviceTime.toISOString()).toBe('2023-11-14T22:13:20.123Z');
    expect(ms.ok && ms.positions[0]!.lat).toBe(-1.5);
    expect(ms.ok && ms.positions[0]!.lng).toBe(2.5);
    const iso = decodeOsmAndQuery({ id: '9', lat: '1', lon: '2', timestamp: '2021-03-04T05:06:07Z' }, now);
    expect(iso.ok && iso.positions[0]!.deviceTime.toISOString()).toBe('2021-03-04T05:06:07.000Z');
    const spaced = decodeOsmAndQuery({ id: '9', lat: '1', lon: '2', timestamp: '2022-07-08 09:10:11' }, now);
    expect(spaced.ok && spaced.positions[0]!.deviceTime.toISOString()).toBe('2022-07-08T09:10:11.000Z');
  });

  it('uses the receive time when there is no timestamp; extra parameters become typed attributes', () => {
    const r = decodeOsmAndQuery({ id: '1', lat: '1', lon: '1', ignition: 'true', rpm: '1500', driver: 'abc' }, now);
    if (!r.ok) throw new Error(r.error);
    expect(r.positions[0]!.deviceTime).toEqual(now);
    expect(r.positions[0]!.attributes).toEqual({ ignition: true, rpm: 1500, io: { driver: 'abc' } });
  });

  it.each([
    [{ lat: '1', lon: '1' }, /device id/],
    [{ id: '1', lat: '91', lon: '1' }, /latitude/],
    [{ id: '1', lat: '1', lon: '-180.5' }, /longitude/],
    [{ id: '1', lat: 'x', lon: '1' }, /latitude/],
    [{ id: '1', lat: '1', lon: '1', timestamp: 'yesterday' }, /timestamp/],
  ])('rejects %j', (query, message) => {
    const r = decodeOsmAndQuery(query as Record<string, string>, now);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(message);
  });

  it("reads Traccar's keys in Traccar's units into the vocabulary, and keeps what does not fit under io", () => {
    const r = decodeOsmAndQuery({ id: '1', lat: '1', lon: '1', hours: '7200000', power: '12.6', alarm: 'powerCut,sos', temp2: '-3.5', ignition: 'maybe', door: 'panic' }, now);
    if (!r.ok) throw new Error(r.error);
    expect(r.positions[0]!.attributes).toEqual({ engineHours: 7200, power: 12.6, alarm: 'powerCut,sos', temp2: -3.5, io: { ignition: 'maybe', door: 'panic' } });
    const unknownAlarm = decodeOsmAndQuery({ id: '1', lat: '1', lon: '1', alarm: 'panic' }, now);
    expect(unknownAlarm.ok && unknownAlarm.positions[0]!.attributes).toEqual({ io: { alarm: 'panic' } });
  });

  it('takes the first value of repeated parameters and ignores non-string values', () => {
    const r = decodeOsmAndQuery({ id: ['7', '8'], lat: '1', lon: '2', location: { nested: true }, cell: ['a', 'b'] }, now);
    if (!r.ok) throw new Error(r.error);
    expect(r.identity).toBe('7');
    expect(r.positions[0]!.attributes).toEqual({ io: { cell: 'a' } });
  });

  it('network-only reports identify the device without a position, and keep what they say', () => {
    const r = decodeOsmAndQuery({ id: '1', timestamp: '1700000000', cell: '244,91,4021,77001' }, now);
    expect(r).toEqual({ ok: true, identity: '1', positions: [], attributes: { io: { cell: '244,91,4021,77001' } } });
    expect(decodeOsmAndQuery({ id: '1', alarm: 'sos' }, now)).toEqual({ ok: true, identity: '1', positions: [], attributes: { alarm: 'sos' } });
    expect(decodeOsmAndQuery({ id: '1' }, now)).toEqual({ ok: true, identity: '1', positions: [] });
  });

  it('round-trips the simulator query', () => {
    const q = osmandQuery('dev-1', fix, { batteryLevel: 55, ignition: true });
    const r = decodeOsmAnd(Object.fromEntries(new URLSearchParams(osmandQueryString('dev-1', fix, { batteryLevel: 55, ignition: true }))), now);
    expect(q.speed).toBe('19.44');
    if (!r.ok) throw new Error(r.error);
    expect(r.positions[0]).toMatchObject({ lat: 59.437, lng: 24.7536, heading: 45, altitude: 30 });
    expect(r.positions[0]!.speed).toBeCloseTo(36, 1);
    expect(r.positions[0]!.attributes).toMatchObject({ batteryLevel: 55, ignition: true });
  });
});

describe('OsmAnd JSON (Traccar Client)', () => {
  it('decodes location, m/s speed, battery fraction and extras', () => {
    const r = decodeOsmAnd(osmandJson('48241179', fix, { batteryLevel: 79, alarm: 'sos' }), now);
    if (!r.ok) throw new Error(r.error);
    expect(r.identity).toBe('48241179');
    const p = r.positions[0]!;
    expect(p.deviceTime.toISOString()).toBe('2023-06-07T10:11:12.000Z');
    expect(p.speed).toBeCloseTo(36, 6);
    expect(p).toMatchObject({ lat: 59.437, lng: 24.7536, heading: 45, altitude: 30, valid: true });
    expect(p.attributes).toMatchObject({ batteryLevel: 79, alarm: 'sos', motion: true, accuracy: 5 });
  });

  it('unknown speed and heading (-1) become 0', () => {
    const body = osmandJson('1', fix);
    const coords = (body.location as { coords: Record<string, number> }).coords;
    coords.speed = -1;
    coords.heading = -1;
    const r = decodeOsmAndJson(body, now);
    expect(r.ok && [r.positions[0]!.speed, r.positions[0]!.heading]).toEqual([0, 0]);
  });

  it('ignores a __proto__ key in extras', () => {
    const body = JSON.parse('{"device_id":"1","location":{"coords":{"latitude":1,"longitude":2},"extras":{"__proto__":{"polluted":true},"ok":1}}}');
    const r = decodeOsmAndJson(body, now);
    if (!r.ok) throw new Error(r.error);
    expect(Object.getPrototypeOf(r.positions[0]!.attributes)).toBe(Object.prototype);
    expect(r.positions[0]!.attributes.io).toEqual({ ok: 1 });
  });

  it('accepts a list of locations', () => {
    const one = osmandJson('1', fix);
    const r = decodeOsmAndJson({ device_id: '1', location: [one.location, one.location] }, now);
    expect(r.ok && r.positions).toHaveLength(2);
  });

  it('rejects missing device_id, missing coords and out-of-range values', () => {
    expect(decodeOsmAndJson({ location: {} }, now).ok).toBe(false);
    expect(decodeOsmAndJson({ device_id: '1', location: { timestamp: 1 } }, now).ok).toBe(false);
    expect(decodeOsmAndJson({ device_id: '1', location: { coords: { latitude: 95, longitude: 0 } } }, now).ok).toBe(false);
  });
});
