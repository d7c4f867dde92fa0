// Devices end to end over real TCP: simulated device → ACK bytes → position visible through the
// public API; unknown devices refused; garbage survived; commands delivered, including
// offline-then-connect and expiry.
import { describe, expect, test, beforeAll, afterAll } from '@jest/globals';
import { request as httpRequest } from 'node:http';
import request from 'supertest';
import { gt06CommandReply, gt06Login, gt06Position } from '../../tracker/simulator/frames/gt06.js';
import { h02Position } from '../../tracker/simulator/frames/h02.js';
import { osmandJson, osmandQueryString } from '../../tracker/simulator/frames/osmand.js';
import { teltonikaAvl, teltonikaCommandResponse, teltonikaHandshake, teltonikaRecord } from '../../tracker/simulator/frames/teltonika.js';
import { DeviceClient, eventually } from '../helpers/device-client.js';
import { startTrackerFixture, type TrackerFixture } from '../helpers/tracker-app.js';

let f: TrackerFixture;
let account: string;
let port: number;
const ids: Record<string, string> = {};
const fix = (i: number, speed = 50) => ({ time: new Date(Date.UTC(2026, 10, 21, 8, 0, i)), lat: 52.52 + i / 10000, lng: 13.405 + i / 10000, speed, heading: 90 });

const api = (path: string) => f.as(account).get(path);
const positions = async (device: string) =>
  (await api(`/api/public/v1/devices/${ids[device]}/positions?from=2026-11-21T00:00:00Z&to=2026-11-21T23:59:59Z`)).body.data as { lat: number; lng: number; speed: number; timestamp: string }[];

beforeAll(async () => {
  f = await startTrackerFixture('postgres', { COMMAND_TTL_SECONDS: '2', DEVICE_TIMEOUT_SECONDS: '60', LOGIN_TIMEOUT_SECONDS: '1' });
  account = await f.account('Fleet');
  for (const [name, imei] of Object.entries({ gt06: '359633100000301', teltonika: '359633100000302', h02: '4210051415', osmand: '359633100000304', late: '359633100000305', expire: '359633100000306' })) {
    ids[name] = await f.device(account, imei, name);
  }
  port = f.tracker.ingest.ports.device!;
});
afterAll(() => f.close());

describe('GT06', () => {
  test('login and position are ACKed after storage and visible through the API', async () => {
    const d = await DeviceClient.open(port);
    d.send(gt06Login('359633100000301', 1));
    const ack = await d.read(10);
    expect(ack.subarray(0, 6)).toEqual(Buffer.from([0x78, 0x78, 0x05, 0x01, 0x00, 0x01]));
    const frame = gt06Position(fix(1), { ignition: true }, 2);
    d.send(frame);
    const posAck = await d.read(10);
    expect(posAck[3]).toBe(frame[3]); // the protocol number, echoed
    expect(posAck.subarray(4, 6)).toEqual(Buffer.from([0x00, 0x02])); // the device's serial
    // The ACK came after commit, so the position is there now.
    const p = await positions('gt06');
    expect(p).toHaveLength(1);
    expect(p[0]!.lat).toBeCloseTo(52.5201, 4);
    expect(p[0]!.speed).toBe(50);
    const device = (await api(`/api/public/v1/devices/${ids.gt06}`)).body;
    expect(device).toMatchObject({ status: 'online', speed: 50, lastUpdate: '2026-11-21T08:00:01.000Z' });
    d.close();
    const after = await eventually(async () => (await api(`/api/public/v1/devices/${ids.gt06}`)).body.status, (s) => s === 'offline');
    expect(after).toBe('offline');
  });

  test('a frame split into single bytes, and two frames in one write, are both understood', async () => {
    const d = await DeviceClient.open(port);
    for (const byte of gt06Login('359633100000301', 5)) d.send(Buffer.from([byte]));
    await d.read(10);
    d.send(Buffer.concat([gt06Position(fix(10), {}, 6), gt06Position(fix(11), {}, 7)]));
    await d.read(20);
    expect((await positions('gt06')).map((p) => p.timestamp)).toEqual(expect.arrayContaining(['2026-11-21T08:00:10.000Z', '2026-11-21T08:00:11.000Z']));
    d.close();
  });

  test('an unknown IMEI gets no ACK and is disconnected', async () => {
    const d = await DeviceClient.open(port);
    d.send(gt06Login('359633199999999', 1));
    expect(await d.waitClosed()).toBe(true);
    expect(d.pending().length).toBe(0);
  });
});

describe('Teltonika', () => {
  test('handshake 01, records ACKed with their count, stored in time order', async () => {
    const d = await DeviceClient.open(port);
    d.send(teltonikaHandshake('359633100000302'));
    expect(await d.read(1)).toEqual(Buffer.from([0x01]));
    // Buffered records arrive newest first; history is still oldest first.
    d.send(teltonikaAvl([teltonikaRecord(fix(30), { ignition: true, fuelLevel: 40 }), teltonikaRecord(fix(20)), teltonikaRecord(fix(25))], 0x8e));
    expect(await d.read(4)).toEqual(Buffer.from([0, 0, 0, 3]));
    expect((await positions('teltonika')).map((p) => p.timestamp)).toEqual(['2026-11-21T08:00:20.000Z', '2026-11-21T08:00:25.000Z', '2026-11-21T08:00:30.000Z']);
    // The current position is the newest, not the last received.
    expect((await api(`/api/public/v1/devices/${ids.teltonika}`)).body.lastUpdate).toBe('2026-11-21T08:00:30.000Z');
    d.close();
  });

  test('an unknown IMEI is answered 00 and disconnected', async () => {
    const d = await DeviceClient.open(port);
    d.send(teltonikaHandshake('359633199999998'));
    expect(await d.read(1)).toEqual(Buffer.from([0x00]));
    expect(await d.waitClosed()).toBe(true);
  });
});

describe('H02 and OsmAnd', () => {
  test('H02 text reports are stored', async () => {
    const d = await DeviceClient.open(port);
    d.send(h02Position('4210051415', fix(40, 36)));
    const p = await eventually(() => positions('h02'), (x) => x.length === 1);
    expect(p[0]).toMatchObject({ timestamp: '2026-11-21T08:00:40.000Z' });
    expect(p[0]!.speed).toBeCloseTo(36, 0);
    // Knots times 1.852 has long decimals: the device shows the number the history keeps.
    expect((await api(`/api/public/v1/devices/${ids.h02}`)).body.speed).toBe(p[0]!.speed);
    d.close();
  });

  test('OsmAnd query and JSON reports are answered 200 once stored; bad ones 400', async () => {
    const http = request(`http://127.0.0.1:${f.tracker.ingest.ports.osmand}`);
    expect((await http.get(`/?${osmandQueryString('359633100000304', fix(50))}`)).status).toBe(200);
    expect((await http.post('/').send(osmandJson('359633100000304', fix(51)))).status).toBe(200);
    expect((await positions('osmand')).map((p) => p.timestamp)).toEqual(['2026-11-21T08:00:50.000Z', '2026-11-21T08:00:51.000Z']);
    // An unknown identifier gets the answer of a known one: probing tells nothing.
    expect((await http.get(`/?${osmandQueryString('359633199999997', fix(52))}`)).status).toBe(200);
    expect((await http.get('/?id=359633100000304&lat=91&lon=10')).status).toBe(400);
    expect((await http.post('/').set('content-type', 'application/json').send('[1,2]')).status).toBe(400);
  });

  test('OsmAnd: a form body over the query, a repeated parameter by its last value, no fragment, a chunked body', async () => {
    const osmand = f.tracker.ingest.ports.osmand!;
    const at = (i: number) => Date.UTC(2026, 10, 21, 8, 1, i) / 1000;
    const send = (method: string, path: string, headers: Record<string, string> = {}, chunks: string[] = []) =>
      new Promise<number>((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port: osmand, method, path, headers }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode!));
        });
        req.on('error', reject);
        for (const chunk of chunks) req.write(chunk); // no length given: the body goes chunked
        req.end();
      });
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    expect(await send('POST', `/?id=359633100000304&timestamp=${at(0)}&lat=1&lon=13.5`, form, ['lat=52.6'])).toBe(200);
    expect(await send('GET', `/?id=359633100000304&timestamp=${at(1)}&lat=9&lat=52.7&lon=13.5#lon=8`)).toBe(200);
    const json = JSON.stringify(osmandJson('359633100000304', { time: new Date(at(2) * 1000), lat: 52.8, lng: 13.5, speed: 0, heading: 0 }));
    expect(await send('POST', '/', { 'content-type': 'application/json' }, [json.slice(0, 20), json.slice(20)])).toBe(200);
    const stored = (await positions('osmand')).filter((p) => p.timestamp.startsWith('2026-11-21T08:01'));
    expect(stored.map((p) => [p.timestamp, p.lat, p.lng])).toEqual([
      ['2026-11-21T08:01:00.000Z', 52.6, 13.5],
      ['2026-11-21T08:01:01.000Z', 52.7, 13.5],
      ['2026-11-21T08:01:02.000Z', 52.8, 13.5],
    ]);
  });
});

describe('hostile input', () => {
  test('random bytes, an oversized frame and a silent connection do not disturb a working device', async () => {
    const garbage = await DeviceClient.open(port);
    garbage.send(Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7919) % 256)));
    const oversize = await DeviceClient.open(port);
    oversize.send(Buffer.from([0x79, 0x79, 0xff, 0xff, 0x12]));
    oversize.send(Buffer.alloc(70_000, 0x41));
    const silent = await DeviceClient.open(port);
    const d = await DeviceClient.open(port);
    d.send(gt06Login('359633100000301', 9));
    await d.read(10);
    d.send(gt06Position(fix(59), {}, 10));
    await d.read(10);
    expect((await positions('gt06')).some((p) => p.timestamp === '2026-11-21T08:00:59.000Z')).toBe(true);
    expect(await garbage.waitClosed()).toBe(true);
    for (const c of [oversize, silent, d]) c.close();
  });
});

describe('timeouts and checksums', () => {
  test('a connection that never identifies itself is closed after the login timeout', async () => {
    const silent = await DeviceClient.open(port);
    const opened = Date.now();
    expect(await silent.waitClosed(3000)).toBe(true);
    expect(Date.now() - opened).toBeGreaterThanOrEqual(900);
  });

  test('a wrong checksum is counted and accepted, and refused with CRC_STRICT', async () => {
    const d = await DeviceClient.open(port);
    d.send(gt06Login('359633100000301', 30));
    await d.read(10);
    const corrupt = (frame: Buffer) => (frame[frame.length - 3]! ^= 0xff, frame);
    d.send(corrupt(gt06Position(fix(45), {}, 31)));
    await d.read(10);
    expect((await positions('gt06')).some((p) => p.timestamp === '2026-11-21T08:00:45.000Z')).toBe(true);
    expect(f.tracker.ingest.deps.stats.badChecksums.get(ids.gt06!)).toBe(1);
    f.tracker.ingest.deps.crcStrict = true;
    try {
      d.send(corrupt(gt06Position(fix(46), {}, 32)));
      await expect(d.read(10, 500)).rejects.toThrow(/timed out/);
      expect((await positions('gt06')).some((p) => p.timestamp === '2026-11-21T08:00:46.000Z')).toBe(false);
      expect(f.tracker.ingest.deps.stats.badChecksums.get(ids.gt06!)).toBe(2);
    } finally {
      f.tracker.ingest.deps.crcStrict = false;
      d.close();
    }
  });
});

describe('commands', () => {
  const locate = (device: string) => f.as(account, 'commands read').post(`/api/public/v1/devices/${ids[device]}/locate`);
  const status = async (device: string, id: string) => (await api(`/api/public/v1/devices/${ids[device]}/commands/${id}`)).body;

  test('an online GT06 device gets WHERE# at once, and its reply delivers the command', async () => {
    const d = await DeviceClient.open(port);
    d.send(gt06Login('359633100000301', 20));
    await d.read(10);
    const { commandId } = (await locate('gt06')).body;
    const head = await d.read(5);
    expect(head[3]).toBe(0x80);
    const rest = await d.read(head[2]! + 5 - 5);
    expect(Buffer.concat([head, rest]).toString('latin1')).toContain('WHERE#');
    expect((await status('gt06', commandId)).status).toBe('sent');
    d.send(gt06CommandReply('Lat:N52.5200,Lon:E13.4050', 1, 21));
    const done = await eventually(() => status('gt06', commandId), (c) => c.status === 'delivered');
    expect(done).toMatchObject({ status: 'delivered', reply: expect.stringContaining('Lat:N52.5200') });
    expect(done.deliveredAt).not.toBeNull();
    d.close();
  });

  test('a command for an offline device is sent when it connects', async () => {
    const { commandId } = (await locate('teltonika')).body;
    expect((await status('teltonika', commandId)).status).toBe('queued');
    const d = await DeviceClient.open(port);
    d.send(teltonikaHandshake('359633100000302'));
    await d.read(1);
    const codec12 = await d.read(8 + 1 + 1 + 1 + 4 + 6, 5000);
    expect(codec12[8]).toBe(0x0c);
    expect(d.pending().toString('latin1') + codec12.toString('latin1')).toContain('getgps');
    d.send(teltonikaCommandResponse('GPS:1 Sat:7 Lat:52.52 Long:13.40'));
    expect((await eventually(() => status('teltonika', commandId), (c) => c.status === 'delivered')).reply).toContain('GPS:1');
    d.close();
  });

  test('an OsmAnd phone gets locate in the answer to its next report, and the report after delivers it', async () => {
    const http = request(`http://127.0.0.1:${f.tracker.ingest.ports.osmand}`);
    const report = async (i: number) => (await http.get(`/?${osmandQueryString('359633100000304', fix(i))}`).buffer(true)).text;
    expect(await report(60)).toBe(''); // online, nothing queued
    const { commandId } = (await locate('osmand')).body;
    // Nothing can reach a phone between its reports: the command waits for the next one.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await status('osmand', commandId)).status).toBe('queued');
    expect(await report(61)).toBe('locate');
    const sent = await status('osmand', commandId);
    expect(sent).toMatchObject({ status: 'sent', deliveredAt: null });
    expect(sent.sentAt).not.toBeNull();
    expect(await report(62)).toBe(''); // sent once only
    const done = await status('osmand', commandId);
    expect(done).toMatchObject({ status: 'delivered', reply: 'position report', position: { timestamp: '2026-11-21T08:01:02.000Z' } });
    expect(done.position.lat).toBeCloseTo(52.5262, 4);
  });

  test('a command that waits longer than COMMAND_TTL expires and is never sent', async () => {
    const { commandId } = (await locate('expire')).body;
    const c = await eventually(() => status('expire', commandId), (x) => x.status !== 'queued', 5000);
    expect(c).toMatchObject({ status: 'expired', sentAt: null });
    expect(c.endedAt).not.toBeNull();
  });
});
