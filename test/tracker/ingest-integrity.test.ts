// One device's unusable values stay its own trouble: implausible reports are refused for that device
// alone (OsmAnd 400; TCP records dropped, the frame still ACKed), a batched write the database refuses
// fails only the frames at fault, and a non-finite number already stored never breaks the API's JSON.
// On PostgreSQL and PGlite, over real TCP and HTTP.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { sensibleFix, hostileGt06, hostileH02, hostileOsmAnd, hostileTeltonika, flood, HOSTILE_KINDS } from '../helpers/hostile-device.js';
import { gt06Login, gt06Position } from '../../tracker/simulator/frames/gt06.js';
import { h02Position } from '../../tracker/simulator/frames/h02.js';
import { osmandQuery } from '../../tracker/simulator/frames/osmand.js';
import { teltonikaAvl, teltonikaHandshake, teltonikaRecord } from '../../tracker/simulator/frames/teltonika.js';
import type { DecodedPosition } from '../../tracker/protocols/types.js';
import { ENGINES } from '../helpers/databases.js';
import { DeviceClient } from '../helpers/device-client.js';
import { sample } from '../helpers/metrics.js';
import { assertMatchesDocument } from '../helpers/openapi.js';
import { startTrackerFixture, type TrackerFixture } from '../helpers/tracker-app.js';

const osmand = (port: number, query: Record<string, string>) => fetch(`http://127.0.0.1:${port}/?${new URLSearchParams(query).toString()}`, { method: 'POST' });

async function teltonikaDevice(port: number, imei: string): Promise<DeviceClient> {
  const d = await DeviceClient.open(port);
  d.send(teltonikaHandshake(imei));
  expect((await d.read(1))[0]).toBe(0x01);
  return d;
}

describe.each(ENGINES)('ingest integrity on %s', (engine) => {
  let f: TrackerFixture;
  let hostile: string;
  let fleet: string;
  let port: number;
  let osmandPort: number;
  const metric = async (name: string, labels: Record<string, string>) => sample(await f.tracker.ctx.metrics.registry.metrics(), name, labels) ?? 0;
  const history = async (account: string, device: string) =>
    (await f.as(account).get(`/api/public/v1/devices/${device}/positions?from=${new Date(Date.now() - 3_600_000).toISOString()}&to=${new Date(Date.now() + 60_000).toISOString()}`)).body.data as unknown[];

  beforeAll(async () => {
    // Every client here shares 127.0.0.1: the per-address OsmAnd limit, a defence of its own, is lifted.
    f = await startTrackerFixture(engine, { OSMAND_REPORTS_PER_MINUTE_PER_ADDRESS: '1000000' });
    hostile = await f.account('Hostile');
    fleet = await f.account('Fleet');
    port = f.tracker.ingest.ports.device!;
    osmandPort = f.tracker.ingest.ports.osmand!;
  });
  afterAll(() => f.close());

  test("a flood of implausible reports from one account: another account's Teltonika units keep getting ACKs and its phones 200", async () => {
    await f.device(hostile, '359633100009001', 'Rogue phone');
    const truck = await f.device(fleet, '359633100009002', 'Truck');
    const phone = await f.device(fleet, '359633100009003', 'Phone');
    const refusedBefore = await metric('fleet_positions_refused_total', { protocol: 'osmand', reason: 'time' });

    let fleetDone!: () => void;
    const until = new Promise<void>((resolve) => (fleetDone = resolve));
    const hostileAnswers: number[] = [];
    const kinds = HOSTILE_KINDS.osmand;
    const flooding = flood(
      async (i) => {
        const res = await osmand(osmandPort, hostileOsmAnd('359633100009001', kinds[i % kinds.length]!));
        hostileAnswers.push(res.status);
      },
      { durationMs: 20_000, concurrency: 4, until },
    );

    const acks: number[] = [];
    const phoneAnswers: number[] = [];
    const d = await teltonikaDevice(port, '359633100009002');
    const start = Date.now() - 60_000;
    try {
      for (let i = 0; i < 15; i++) {
        const fix = { ...sensibleFix(new Date(start + i * 1000)), lat: 38.7 + i / 1000 };
        d.send(teltonikaAvl([teltonikaRecord(fix)]));
        acks.push((await d.read(4, 5000)).readUInt32BE(0));
        phoneAnswers.push((await osmand(osmandPort, osmandQuery('359633100009003', sensibleFix(new Date(start + i * 1000))))).status);
      }
    } finally {
      fleetDone(); // the flood must not outlive the test, whatever happened
      d.close();
    }
    const { sent } = await flooding;

    expect(acks).toEqual(Array(15).fill(1));
    expect(phoneAnswers).toEqual(Array(15).fill(200));
    expect(sent).toBeGreaterThan(15);
    expect(new Set(hostileAnswers)).toEqual(new Set([400]));
    expect(await history(fleet, truck)).toHaveLength(15);
    expect(await history(fleet, phone)).toHaveLength(15);
    expect(await metric('fleet_positions_refused_total', { protocol: 'osmand', reason: 'time' })).toBeGreaterThan(refusedBefore);
  }, 60_000);

  test('an implausible OsmAnd report is answered 400 with the reason and stores nothing', async () => {
    const phone = await f.device(hostile, '359633100009011', 'Phone with a broken clock');
    for (const kind of HOSTILE_KINDS.osmand) {
      const res = await osmand(osmandPort, hostileOsmAnd('359633100009011', kind));
      expect({ kind, status: res.status }).toEqual({ kind, status: 400 });
      expect(await res.text()).toContain(kind);
    }
    expect(await history(hostile, phone)).toEqual([]);
  });

  test("a Teltonika packet with implausible records: its sensible records are stored and the packet is ACKed, so the unit's buffer moves on", async () => {
    const unit = await f.device(fleet, '359633100009021', 'Van');
    const d = await teltonikaDevice(port, '359633100009021');
    d.send(hostileTeltonika(HOSTILE_KINDS.teltonika, 2));
    expect((await d.read(4, 5000)).readUInt32BE(0)).toBe(2 + HOSTILE_KINDS.teltonika.length);
    d.send(teltonikaAvl([teltonikaRecord(sensibleFix())]));
    expect((await d.read(4, 5000)).readUInt32BE(0)).toBe(1);
    d.close();
    expect(await history(fleet, unit)).toHaveLength(3);
    expect(await metric('fleet_positions_refused_total', { protocol: 'teltonika', reason: 'altitude' })).toBeGreaterThan(0);
  });

  test("GT06 and H02 reports dated decades ahead are refused and do not freeze the unit's current position", async () => {
    const gt06 = await f.device(fleet, '359633100009031', 'GT06 unit');
    const h02 = await f.device(fleet, '4210059032', 'H02 unit');
    const good = sensibleFix(new Date(Date.now() - 5000));
    const g = await DeviceClient.open(port);
    g.send(gt06Login('359633100009031', 1));
    await g.read(10);
    g.send(hostileGt06('time', 2));
    g.send(gt06Position(good, {}, 3));
    const h = await DeviceClient.open(port);
    for (const kind of HOSTILE_KINDS.h02) h.send(hostileH02('4210059032', kind));
    h.send(h02Position('4210059032', good));
    const lastUpdate = async (id: string) => (await f.as(fleet).get(`/api/public/v1/devices/${id}`)).body.lastUpdate as string | null;
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline && ((await lastUpdate(gt06)) === null || (await lastUpdate(h02)) === null)) await new Promise((r) => setTimeout(r, 50));
    expect(await lastUpdate(gt06)).toBe(good.time.toISOString());
    expect(await lastUpdate(h02)).toBe(good.time.toISOString());
    expect(g.closed || h.closed).toBe(false);
    g.close();
    h.close();
    expect(await history(fleet, gt06)).toHaveLength(1);
    expect(await history(fleet, h02)).toHaveLength(1);
  });

  test('a batched write the database refuses fails only the frames at fault; the others are stored with their events', async () => {
    const [a, b, c] = [await f.device(fleet, '359633100009041', 'A'), await f.device(fleet, '359633100009042', 'B'), await f.device(fleet, '359633100009043', 'C')];
    const at = (deviceTime: Date, extra: Partial<DecodedPosition> = {}): DecodedPosition => ({ deviceTime, valid: true, lat: 38.7, lng: -9.1, speed: 10, heading: 0, attributes: {}, ...extra });
    const now = new Date(Math.floor(Date.now() / 1000) * 1000);
    const batcher = f.tracker.ingest.deps.batcher;
    // What the plausibility check keeps out, handed straight to the batcher: PostgreSQL refuses a
    // satellite count past a smallint's range and an altitude past a real's.
    const outcomes = await Promise.allSettled([
      batcher.add([{ deviceId: a, position: at(now) }]),
      batcher.add([{ deviceId: b, position: at(now, { satellites: 100_000 }) }]),
      batcher.add([{ deviceId: c, position: at(now, { attributes: { alarm: 'sos' } }) }]),
      batcher.add([{ deviceId: b, position: at(now, { altitude: 1e300 }) }]),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected']);
    expect(await history(fleet, a)).toHaveLength(1);
    expect(await history(fleet, b)).toHaveLength(0);
    expect(await history(fleet, c)).toHaveLength(1);
    const alerts = (await f.as(fleet).get('/api/public/v1/alerts')).body.data as { type: string; deviceId: string }[];
    expect(alerts.filter((x) => x.deviceId === c).map((x) => x.type)).toEqual(['sos']);
  });

  test('numbers stored as Infinity or NaN reach the API as null, and the JSON parses and matches the document', async () => {
    const unit = await f.device(fleet, '359633100009051', 'Broken speedo');
    const lost = await f.device(fleet, '359633100009052', 'Off the map');
    const t = new Date(Date.now() - 60_000);
    const db = f.tracker.ctx.db;
    await db.query("UPDATE devices SET last_lat = 38.7, last_lng = -9.1, last_speed = 'Infinity', last_update = $2 WHERE id = $1", [unit, t]);
    await db.query("UPDATE devices SET last_lat = 'NaN', last_lng = '-Infinity', last_speed = 'NaN', last_update = $2 WHERE id = $1", [lost, t]);
    await db.query("INSERT INTO positions (device_id, device_time, valid, lat, lng, speed, heading) VALUES ($1, $2, true, 38.7, 'Infinity', 'Infinity', 'NaN')", [unit, t]);

    const list = await f.as(fleet).get('/api/public/v1/devices');
    expect(list.status).toBe(200);
    assertMatchesDocument('get', '/api/public/v1/devices', 200, list.body);
    const shown = (id: string) => (list.body.data as { id: string }[]).find((d) => d.id === id);
    expect(shown(unit)).toMatchObject({ speed: null, position: { lat: 38.7, lng: -9.1 } });
    expect(shown(lost)).toMatchObject({ speed: null, position: null });
    const one = await f.as(fleet).get(`/api/public/v1/devices/${unit}`);
    assertMatchesDocument('get', '/api/public/v1/devices/{id}', 200, one.body);
    expect(one.body.speed).toBeNull();
    for (const limit of ['', '&limit=10']) {
      const res = await f.as(fleet).get(`/api/public/v1/devices/${unit}/positions?from=${new Date(t.getTime() - 1000).toISOString()}&to=${new Date().toISOString()}${limit}`);
      assertMatchesDocument('get', '/api/public/v1/devices/{id}/positions', 200, res.body);
      expect(res.body.data).toEqual([{ lat: 38.7, lng: null, speed: null, heading: null, timestamp: t.toISOString() }]);
    }
  });
});
