// Trips, stops and summary reports on scripted tracks stored through the ingest path (so the
// odometer and engine hours are the ones the tracker computes), on both engines: two trips with an
// idle stop between them, a trip across midnight, a trip with a 10-minute silence, late records; JSON
// and CSV, several units in one call, settings, isolation between accounts and bad input.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { DecodedPosition } from '../../tracker/protocols/types.js';
import { maintainPartitions } from '../../tracker/storage/partitions.js';
import { ENGINES } from '../helpers/databases.js';
import { assertMatchesDocument } from '../helpers/openapi.js';
import { startTrackerFixture, type TrackerFixture } from '../helpers/tracker-app.js';

const V1 = '/api/public/v1';
const STEP_S = 30;
/** Degrees of latitude per metre on the sphere the computed odometer uses. */
const DEG_PER_M = 1 / ((6_371_008.8 * Math.PI) / 180);

type Phase = { drive: number; kmh: number; ignition?: boolean } | { stand: number; ignition?: boolean } | { silence: number; kmh: number };

/**
 * Records every 30 s from `start`: driving north at a steady speed (each record that far from the one
 * before), standing still, or silent (no records, the unit moving on). Minutes per phase.
 */
function track(start: string, phases: Phase[]): DecodedPosition[] {
  const out: DecodedPosition[] = [];
  let t = new Date(start).getTime();
  let lat = 38.7;
  let last = t;
  for (const phase of phases) {
    const minutes = 'drive' in phase ? phase.drive : 'stand' in phase ? phase.stand : phase.silence;
    const end = t + minutes * 60_000;
    if ('silence' in phase) {
      t = end;
      continue;
    }
    for (; t < end; t += STEP_S * 1000) {
      const kmh = 'drive' in phase ? phase.kmh : 0;
      lat += ((kmh / 3.6) * (t - last)) / 1000 * DEG_PER_M;
      last = t;
      const attributes = phase.ignition === undefined ? {} : { ignition: phase.ignition };
      out.push({ deviceTime: new Date(t), valid: true, lat, lng: -9.14, speed: kmh, heading: 0, attributes });
    }
  }
  return out;
}

/** Two trips with an idle stop between them (10 minutes, engine on), a 2-minute stop inside the second, a yard move in the last stop. */
const WORKDAY = track('2026-10-05T08:00:00Z', [
  { stand: 20, ignition: false },
  { drive: 30, kmh: 60, ignition: true },
  { stand: 10, ignition: true },
  { drive: 10, kmh: 45, ignition: true },
  { stand: 2, ignition: true },
  { drive: 8, kmh: 45, ignition: true },
  { stand: 20, ignition: false },
  { drive: 1, kmh: 6, ignition: true },
  { stand: 19, ignition: false },
]);
/** No ignition reported: motion alone. */
const NIGHT = track('2026-10-05T23:20:00Z', [{ stand: 20 }, { drive: 40, kmh: 60 }, { stand: 20 }]);
const GAP = track('2026-10-06T10:00:00Z', [{ stand: 10 }, { drive: 20, kmh: 60 }, { silence: 10, kmh: 60 }, { drive: 20, kmh: 60 }, { stand: 10 }]);

interface Trip {
  deviceId: string;
  startTime: string;
  endTime: string;
  start: { lat: number; lng: number };
  end: { lat: number; lng: number };
  distance: number;
  duration: number;
  averageSpeed: number;
  maxSpeed: number;
  engineHours: number | null;
  fuelUsed: number | null;
  driverUniqueId: string | null;
}

describe.each(ENGINES)('reports on %s', (engine) => {
  let f: TrackerFixture;
  let acme: string;
  let other: string;
  let workday: string;
  let night: string;
  let gap: string;
  let late: string;
  let foreign: string;

  const store = (deviceId: string, positions: DecodedPosition[]) => f.tracker.ingest.deps.batcher.add(positions.map((position) => ({ deviceId, position })));

  beforeAll(async () => {
    f = await startTrackerFixture(engine);
    acme = await f.account('Acme');
    other = await f.account('Other');
    workday = await f.device(acme, '359633100000401', 'Workday');
    night = await f.device(acme, '359633100000402', 'Night');
    gap = await f.device(acme, '359633100000403', 'Gap');
    late = await f.device(acme, '359633100000404', 'Late');
    foreign = await f.device(other, '359633100000405', 'Foreign');
    await store(workday, WORKDAY);
    await store(night, NIGHT);
    await store(gap, GAP);
    // The same day as `workday`, with ten minutes of the first trip arriving after everything else.
    const held = (p: DecodedPosition) => p.deviceTime >= new Date('2026-10-05T08:30:00Z') && p.deviceTime < new Date('2026-10-05T08:40:00Z');
    await store(late, WORKDAY.filter((p) => !held(p)));
    await store(late, WORKDAY.filter(held));
    await store(foreign, WORKDAY);
  });
  afterAll(() => f.close());

  const get = async (path: string, as = acme, status = 200) => {
    const res = await f.as(as, 'read').get(`${V1}/reports/${path}`);
    expect({ status: res.status, body: res.status === 200 ? 'ok' : res.body }).toEqual({ status, body: status === 200 ? 'ok' : expect.anything() });
    const template = `${V1}/reports/${path.split('?')[0]}`;
    if (res.headers['content-type']?.startsWith('application/json')) assertMatchesDocument('get', template, status, res.body);
    return res;
  };
  const RANGE = 'from=2026-10-05T00:00:00Z&to=2026-10-07T00:00:00Z';
  const trips = async (device: string, query = RANGE): Promise<Trip[]> => (await get(`trips?${query}&deviceId=${device}`)).body.data;

  test('two trips with an idle stop between them; a short stop and a yard move change nothing', async () => {
    const found = await trips(workday);
    expect(found.map((t) => [t.startTime, t.endTime])).toEqual([
      ['2026-10-05T08:19:30.000Z', '2026-10-05T08:50:00.000Z'],
      ['2026-10-05T08:59:30.000Z', '2026-10-05T09:20:00.000Z'],
    ]);
    const [first, second] = found as [Trip, Trip];
    expect(first.distance).toBeCloseTo(30_000, -1);
    expect(second.distance).toBeCloseTo(13_500, -1);
    expect(first.duration).toBe(1830);
    expect(first.averageSpeed).toBeCloseTo((30 / 1830) * 3600, 0);
    expect([first.maxSpeed, second.maxSpeed]).toEqual([60, 45]);
    // Engine hours computed from the ignition: on from 08:20 until 09:20, counted between records.
    expect([first.engineHours, second.engineHours]).toEqual([1800, 1230]);
    expect(first.fuelUsed).toBeNull();
    expect(first.start.lat).toBeCloseTo(38.7, 6);
    expect(first.end.lat).toBeCloseTo(38.7 + 30_000 * DEG_PER_M, 4);
    expect(second.start).toEqual(first.end);

    const stops = (await get(`stops?${RANGE}&deviceId=${workday}`)).body.data;
    expect(stops.map((s: { startTime: string; endTime: string; duration: number; engineOnTime: number }) => [s.startTime, s.endTime, s.duration, s.engineOnTime])).toEqual([
      ['2026-10-05T08:00:00.000Z', '2026-10-05T08:19:30.000Z', 1170, 0],
      ['2026-10-05T08:50:00.000Z', '2026-10-05T08:59:30.000Z', 570, 570],
      ['2026-10-05T09:20:00.000Z', '2026-10-05T09:59:30.000Z', 2370, 60],
    ]);
    expect(stops[1].position).toEqual(first.end);
  });

  test('late records: the same trips as when every record came in order', async () => {
    const inOrder = await trips(workday);
    const withLate = await trips(late);
    expect(withLate.map((t) => [t.startTime, t.endTime, t.maxSpeed, t.engineHours])).toEqual(inOrder.map((t) => [t.startTime, t.endTime, t.maxSpeed, t.engineHours]));
    withLate.forEach((t, i) => expect(t.distance).toBeCloseTo(inOrder[i]!.distance, -1));
  });

  test('a trip across midnight is one trip; the daily summary splits its distance at midnight', async () => {
    const found = await trips(night);
    expect(found.map((t) => [t.startTime, t.endTime, t.engineHours])).toEqual([['2026-10-05T23:39:30.000Z', '2026-10-06T00:20:00.000Z', null]]);
    expect(found[0]!.distance).toBeCloseTo(40_000, -1);

    const daily = (await get(`summary?${RANGE}&deviceId=${night}&daily=true`)).body.data;
    expect(daily.map((d: { day: string; trips: number }) => [d.day, d.trips])).toEqual([['2026-10-05', 1], ['2026-10-06', 0]]);
    expect(daily[0].distance).toBeCloseTo(20_000, -1);
    expect(daily[1].distance).toBeCloseTo(20_000, -1);
    expect(daily[0].firstPosition.time).toBe('2026-10-05T23:20:00.000Z');
    expect(daily[0].lastPosition.time).toBe('2026-10-05T23:59:30.000Z');
    expect(daily[1].firstPosition.time).toBe('2026-10-06T00:00:00.000Z');
    expect(daily[1].lastPosition.time).toBe('2026-10-06T00:39:30.000Z');

    const whole = (await get(`summary?${RANGE}&deviceId=${night}`)).body.data;
    expect(whole).toHaveLength(1);
    expect(whole[0]).toMatchObject({ deviceId: night, day: null, trips: 1, maxSpeed: 60, engineHours: null, idleTime: null, fuelUsed: null });
    expect(whole[0].distance).toBeCloseTo(40_000, -1);
  });

  test('a 10-minute silence while driving does not split the trip', async () => {
    const found = await trips(gap);
    expect(found.map((t) => [t.startTime, t.endTime])).toEqual([['2026-10-06T10:09:30.000Z', '2026-10-06T11:00:00.000Z']]);
    expect(found[0]!.distance).toBeCloseTo(50_000, -1);
  });

  test('a range cuts a trip at its edge (both ends inclusive), so consecutive ranges add up', async () => {
    const before = await trips(night, 'from=2026-10-05T00:00:00Z&to=2026-10-06T00:00:00Z');
    const after = await trips(night, 'from=2026-10-06T00:00:00Z&to=2026-10-07T00:00:00Z');
    expect(before.map((t) => [t.startTime, t.endTime])).toEqual([['2026-10-05T23:39:30.000Z', '2026-10-06T00:00:00.000Z']]);
    expect(after.map((t) => [t.startTime, t.endTime])).toEqual([['2026-10-06T00:00:00.000Z', '2026-10-06T00:20:00.000Z']]);
  });

  test('every unit of the account in one call, or those named; never another account\'s', async () => {
    const all: Trip[] = (await get(`trips?${RANGE}`)).body.data;
    const perDevice = (list: Trip[]) => Object.fromEntries([...new Set(list.map((t) => t.deviceId))].map((id) => [id, list.filter((t) => t.deviceId === id).length]));
    expect(perDevice(all)).toEqual({ [workday]: 2, [night]: 1, [gap]: 1, [late]: 2 });
    const named: Trip[] = (await get(`trips?${RANGE}&deviceId=${gap}&deviceId=${night}`)).body.data;
    expect(perDevice(named)).toEqual({ [night]: 1, [gap]: 1 });

    const summary = (await get(`summary?${RANGE}`)).body.data;
    expect(summary.map((s: { deviceId: string }) => s.deviceId).sort()).toEqual([workday, night, gap, late].sort());
    expect((await get(`summary?${RANGE}`, other)).body.data.map((s: { deviceId: string }) => s.deviceId)).toEqual([foreign]);

    const refused = await get(`trips?${RANGE}&deviceId=${workday}&deviceId=${foreign}`, acme, 404);
    expect(refused.body.error).toBe(`no device ${foreign}`);
    await get(`stops?${RANGE}&deviceId=${workday}`, other, 404);
  });

  test('CSV: a header row, then the same trips as the JSON', async () => {
    const res = await f.as(acme, 'read').get(`${V1}/reports/trips?${RANGE}&deviceId=${workday}`).set('Accept', 'text/csv');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    const [header, ...lines] = res.text.trimEnd().split('\r\n');
    expect(header).toBe('deviceId,startTime,endTime,startLat,startLng,endLat,endLng,distance,duration,averageSpeed,maxSpeed,engineHours,fuelUsed,driverUniqueId');
    const json = await trips(workday);
    expect(lines.map((l) => l.split(','))).toEqual(
      json.map((t) => [t.deviceId, t.startTime, t.endTime, t.start.lat, t.start.lng, t.end.lat, t.end.lng, t.distance, t.duration, t.averageSpeed, t.maxSpeed, t.engineHours, '', ''].map(String)),
    );
    const stops = await f.as(acme, 'read').get(`${V1}/reports/summary?${RANGE}&deviceId=${night}`).set('Accept', 'text/csv');
    expect(stops.text.split('\r\n')[1]).toMatch(new RegExp(`^${night},,4\\d{4}(\\.\\d)?,,60,`));
  });

  test('trip settings: a unit\'s own, else its account\'s, else the defaults', async () => {
    const settings = await f.as(acme).patch(`${V1}/devices/${workday}/settings`).send({ trips: { minStopDurationS: 900 } });
    expect(settings.status).toBe(200);
    expect(settings.body.trips).toEqual({ minTripDistanceM: null, minTripDurationS: null, minStopDurationS: 900, maxGapS: null });
    expect((await trips(workday)).map((t) => [t.startTime, t.endTime])).toEqual([['2026-10-05T08:19:30.000Z', '2026-10-05T09:20:00.000Z']]);
    expect(await trips(late)).toHaveLength(2);

    const account = await f.as(acme).patch(`${V1}/settings`).send({ trips: { minTripDistanceM: 100_000, minTripDurationS: 86_400 } });
    expect(account.status).toBe(200);
    expect(account.body).toEqual({ speedLimitKmh: null, trips: { minTripDistanceM: 100_000, minTripDurationS: 86_400, minStopDurationS: null, maxGapS: null } });
    expect(await trips(late)).toEqual([]);
    expect(await trips(workday)).toEqual([]);
    await f.as(acme).patch(`${V1}/settings`).send({ trips: { minTripDistanceM: null, minTripDurationS: null } }).expect(200);
    await f.as(acme).patch(`${V1}/devices/${workday}/settings`).send({ trips: { minStopDurationS: null } }).expect(200);
    expect(await trips(workday)).toHaveLength(2);
    const bad = await f.as(acme).patch(`${V1}/settings`).send({ trips: { maxGapS: -1 } });
    expect([bad.status, bad.body.error]).toEqual([400, 'invalid body field "trips.maxGapS": must be at least 0']);
  });

  test('records that arrive late for a day already reported on change that day\'s report', async () => {
    expect(await trips(gap)).toHaveLength(1);
    // Buffered in the unit for days: an afternoon trip, with the unit's own odometer.
    const afternoon = track('2026-10-06T14:00:00Z', [{ stand: 10 }, { drive: 20, kmh: 60 }, { stand: 10 }]).map((p, i) => ({ ...p, attributes: { odometer: 900_000 + Math.max(0, Math.min(i - 19, 40)) * 500 } }));
    await store(gap, afternoon);
    const found = await trips(gap);
    expect(found.map((t) => [t.startTime, t.endTime, t.distance])).toEqual([
      ['2026-10-06T10:09:30.000Z', '2026-10-06T11:00:00.000Z', found[0]!.distance],
      ['2026-10-06T14:09:30.000Z', '2026-10-06T14:30:00.000Z', 20_000],
    ]);
    const daily = (await get(`summary?${RANGE}&deviceId=${gap}&daily=true`)).body.data;
    expect(daily.map((d: { day: string; trips: number }) => [d.day, d.trips])).toEqual([['2026-10-06', 2]]);
  });

  test('kept days go with the positions past the retention', async () => {
    const kept = async () => (await f.tracker.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM report_days'))[0]!.n;
    expect(await kept()).toBeGreaterThan(0);
    await maintainPartitions(f.tracker.ctx.db, 365, new Date('2027-10-06T12:00:00Z'));
    expect(await kept()).toBeGreaterThan(0);
    await maintainPartitions(f.tracker.ctx.db, 365, new Date('2027-10-07T12:00:00Z'));
    expect(await kept()).toBe(0);
  });

  test('bad input is a clear 400', async () => {
    const cases: [string, string][] = [
      [`trips?from=2026-01-01T00:00:00Z&to=2026-06-01T00:00:00Z`, 'the range from "from" to "to" may span at most 90 days'],
      [`trips?from=2026-10-07T00:00:00Z&to=2026-10-05T00:00:00Z`, '"from" must not be later than "to"'],
      [`stops?from=2026-10-05T00:00:00Z&to=2026-10-06T00:00:00`, 'invalid query parameter "to": must be an ISO 8601 timestamp with a time zone, such as 2026-11-21T09:30:00Z'],
      [`summary?${RANGE}&deviceId=nope`, 'invalid query parameter "deviceId": "nope" is not a unit id'],
      [`summary?${RANGE}&deviceId=`, 'invalid query parameter "deviceId": "" is not a unit id'],
      [`summary?${RANGE}&daily=yes`, 'invalid query parameter "daily": must be one of true, false'],
      [`trips?from=yesterday&to=2026-10-05T00:00:00Z`, 'invalid query parameter "from": must be an ISO 8601 timestamp with a time zone, such as 2026-11-21T09:30:00Z'],
      [`trips?${RANGE}&${Array.from({ length: 501 }, () => 'deviceId=x').join('&')}`, 'invalid query parameter "deviceId": at most 500 units per call'],
    ];
    for (const [path, error] of cases) {
      const res = await f.as(acme, 'read').get(`${V1}/reports/${path}`);
      expect([path.slice(0, 120), res.status, res.body.error]).toEqual([path.slice(0, 120), 400, error]);
      assertMatchesDocument('get', `${V1}/reports/${path.split('?')[0]}`, 400, res.body);
    }
  });
});
