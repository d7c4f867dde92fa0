// Device connections against a real tracker over real TCP and HTTP: the login deadline holds
// whatever an unidentified peer sends; connection caps per address and in total; a second
// connection with a connected device's identifier (DEVICE_TAKEOVER newer and older); OsmAnd
// answering unknown identifiers like known ones and limiting reports per address.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import request from 'supertest';
import { gt06CommandReply, gt06Login, gt06Position } from '../../tracker/simulator/frames/gt06.js';
import { osmandQueryString } from '../../tracker/simulator/frames/osmand.js';
import { DeviceClient, eventually } from '../helpers/device-client.js';
import { openMany, trickle } from '../helpers/hostile-connection.js';
import { sample } from '../helpers/metrics.js';
import { startTrackerFixture, type TrackerFixture } from '../helpers/tracker-app.js';

const fix = (i: number) => ({ time: new Date(Date.UTC(2026, 10, 22, 9, 0, i)), lat: 52.52, lng: 13.405, speed: 20, heading: 90 });
const metric = async (f: TrackerFixture, name: string, labels: Record<string, string> = {}) => sample(await f.tracker.ctx.metrics.registry.metrics(), name, labels);

/** A GT06 unit logged in on a new connection (its login ACKed). */
async function loggedIn(port: number, imei: string): Promise<DeviceClient> {
  const d = await DeviceClient.open(port);
  d.send(gt06Login(imei, 1));
  await d.read(10);
  return d;
}

/** Logs in once the tracker has let go of a closed connection (until then it may refuse). */
async function loggedInSoon(port: number, imei: string): Promise<DeviceClient | null> {
  return eventually(() => loggedIn(port, imei).catch(() => null), (d) => d !== null);
}

/** Reads a GT06 command frame (0x80) the tracker sent, as text. */
async function commandFrame(d: DeviceClient, timeoutMs = 3000): Promise<string> {
  const head = await d.read(5, timeoutMs);
  const rest = await d.read(head[2]!, timeoutMs);
  expect(head[3]).toBe(0x80);
  return Buffer.concat([head, rest]).toString('latin1');
}

describe('login deadline and connection caps', () => {
  let f: TrackerFixture;
  let port: number;
  beforeAll(async () => {
    f = await startTrackerFixture('postgres', { LOGIN_TIMEOUT_SECONDS: '2', DEVICE_MAX_CONNECTIONS_PER_ADDRESS: '3', DEVICE_MAX_CONNECTIONS: '5' });
    port = f.tracker.ingest.ports.device!;
  });
  afterAll(() => f.close());

  test('a connection trickling a byte at a time is closed at the login deadline, counted from connect', async () => {
    const opened = Date.now();
    const c = await trickle(port, 300);
    expect(await c.waitClosed(4000)).toBe(true);
    expect(Date.now() - opened).toBeGreaterThanOrEqual(1800);
    expect(Date.now() - opened).toBeLessThan(3500);
    expect(await metric(f, 'fleet_device_connections_refused_total', { reason: 'login_timeout' })).toBe(1);
  });

  test('connections past the per-address cap and past the total are closed at once; a unit elsewhere still logs in', async () => {
    const first = await openMany(port, 4, '127.0.0.1');
    expect(first.open.length).toBe(3);
    expect(first.closed.length).toBe(1);
    const second = await openMany(port, 3, '127.0.0.2');
    expect(second.open.length).toBe(2); // 5 in total
    expect(second.closed.length).toBe(1);
    expect(await metric(f, 'fleet_device_connections_refused_total', { reason: 'address' })).toBe(1);
    expect(await metric(f, 'fleet_device_connections_refused_total', { reason: 'total' })).toBe(1);
    for (const s of [...first.open, ...second.open]) s.destroy();
    // Closed connections give their places back.
    const account = await f.account('Caps');
    await f.device(account, '359633100000801');
    const d = await loggedInSoon(port, '359633100000801');
    expect(d?.closed).toBe(false);
    d?.close();
  });
});

describe('a second connection with a connected unit\'s identifier (DEVICE_TAKEOVER=newer)', () => {
  let f: TrackerFixture;
  let port: number;
  let account: string;
  beforeAll(async () => {
    f = await startTrackerFixture('postgres', { OSMAND_REPORTS_PER_MINUTE_PER_ADDRESS: '8' });
    port = f.tracker.ingest.ports.device!;
    account = await f.account('Fleet');
  });
  afterAll(() => f.close());

  test('does not close the unit nor take its commands with a login; with its first position it takes over', async () => {
    const id = await f.device(account, '359633100000811');
    const real = await loggedIn(port, '359633100000811');
    const other = await loggedIn(port, '359633100000811');
    await new Promise((r) => setTimeout(r, 200));
    expect(real.closed).toBe(false);
    const locate = async () => (await f.as(account, 'commands read').post(`/api/public/v1/devices/${id}/locate`).expect(200)).body.commandId as string;
    const status = async (commandId: string) => (await f.as(account).get(`/api/public/v1/devices/${id}/commands/${commandId}`).expect(200)).body.status as string;
    const first = await locate();
    expect(await commandFrame(real)).toContain('WHERE#'); // still the unit's
    expect(other.pending().length).toBe(0);
    other.send(gt06CommandReply('Lat:N1.0000,Lon:E1.0000', 1, 2)); // an answer it never got asked for
    await new Promise((r) => setTimeout(r, 200));
    expect(await status(first)).toBe('sent');

    other.send(gt06Position(fix(1), {}, 3));
    await other.read(10);
    expect(await real.waitClosed()).toBe(true);
    await locate();
    expect(await commandFrame(other)).toContain('WHERE#');
    expect(await metric(f, 'fleet_device_takeovers_total', { winner: 'newer' })).toBe(1);
    other.close();
  });

  test('OsmAnd: an unknown identifier gets the very answer of a known one', async () => {
    await f.device(account, '359633100000812');
    const http = request(`http://127.0.0.1:${f.tracker.ingest.ports.osmand}`);
    const known = await http.get(`/?${osmandQueryString('359633100000812', fix(2))}`);
    const unknown = await http.get(`/?${osmandQueryString('359633199999912', fix(2))}`);
    expect({ status: unknown.status, body: unknown.text, type: unknown.headers['content-type'] }).toEqual({ status: known.status, body: known.text, type: known.headers['content-type'] });
    expect(known.status).toBe(200);
    expect(f.tracker.ingest.deps.stats.unknownIdentities).toBe(1);
  });

  test('OsmAnd: reports past the per-address budget get 429 with Retry-After', async () => {
    const http = request(`http://127.0.0.1:${f.tracker.ingest.ports.osmand}`);
    const statuses: number[] = [];
    let retryAfter = '';
    for (let i = 0; i < 8; i++) {
      const res = await http.get(`/?${osmandQueryString('359633100000812', fix(10 + i))}`);
      statuses.push(res.status);
      if (res.status === 429) retryAfter = res.headers['retry-after'] as string;
    }
    // Two reports were spent by the test before.
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429]);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(retryAfter)).toBeLessThanOrEqual(60);
    expect(await metric(f, 'fleet_osmand_reports_limited_total')).toBe(2);
  });
});

describe('DEVICE_TAKEOVER=older', () => {
  let f: TrackerFixture;
  beforeAll(async () => {
    f = await startTrackerFixture('postgres', { DEVICE_TAKEOVER: 'older' });
  });
  afterAll(() => f.close());

  test('a second connection is refused while the unit\'s connection is open, and accepted once it is gone', async () => {
    const port = f.tracker.ingest.ports.device!;
    const account = await f.account('Fleet');
    await f.device(account, '359633100000821');
    const real = await loggedIn(port, '359633100000821');
    const other = await DeviceClient.open(port);
    other.send(gt06Login('359633100000821', 1));
    expect(await other.waitClosed()).toBe(true);
    expect(real.closed).toBe(false);
    real.send(gt06Position(fix(3), {}, 2));
    await real.read(10);
    expect(await metric(f, 'fleet_device_takeovers_total', { winner: 'older' })).toBe(1);
    real.close();
    await real.waitClosed();
    const later = await loggedInSoon(port, '359633100000821');
    expect(later?.closed).toBe(false);
    later?.close();
  });
});

describe('OsmAnd answer timing', () => {
  let f: TrackerFixture;
  beforeAll(async () => {
    f = await startTrackerFixture('postgres');
  });
  afterAll(() => f.close());

  test('an unknown identifier is answered after about as long as a known one', async () => {
    await f.device(await f.account('Phones'), '359633100000831');
    const http = request(`http://127.0.0.1:${f.tracker.ingest.ports.osmand}`);
    const timed = async (imei: string, i: number) => {
      const started = performance.now();
      await http.get(`/?${osmandQueryString(imei, fix(i))}`).expect(200);
      return performance.now() - started;
    };
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    for (let i = 0; i < 20; i++) await timed('359633100000831', i); // the tracker learns how long a report takes
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 20; i < 40; i++) {
      known.push(await timed('359633100000831', i));
      unknown.push(await timed('359633199999931', i));
    }
    // Storing waits for a batch (tens of ms); a lookup that finds nothing takes about one.
    expect(median(unknown)).toBeGreaterThan(median(known) * 0.6);
    expect(median(unknown)).toBeLessThan(median(known) * 1.6);
  });
});
