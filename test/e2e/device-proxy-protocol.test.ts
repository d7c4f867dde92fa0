// DEVICE_PROXY_PROTOCOL against a real tracker over real TCP: the device's address comes from the
// balancer's PROXY protocol header (versions 1 and 2), so per-address caps count devices, not the
// balancer; a connection without a valid header, or one trickling it, is refused and counted; a
// header split across packets, or arriving with the device's first bytes, works. The OsmAnd HTTP
// port reads the header too.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { connect } from 'node:net';
import { gt06Login } from '../../tracker/simulator/frames/gt06.js';
import { osmandQueryString } from '../../tracker/simulator/frames/osmand.js';
import { DeviceClient } from '../helpers/device-client.js';
import { sample } from '../helpers/metrics.js';
import { proxyV1, proxyV2 } from '../helpers/proxy-header.js';
import { startTrackerFixture, type TrackerFixture } from '../helpers/tracker-app.js';

const fix = (i: number) => ({ time: new Date(Date.UTC(2026, 10, 22, 9, 0, i)), lat: 52.52, lng: 13.405, speed: 20, heading: 90 });
const refused = async (f: TrackerFixture, reason: string) => sample(await f.tracker.ctx.metrics.registry.metrics(), 'fleet_device_connections_refused_total', { reason });
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Opens connections that each send `header` first, and says how many the tracker kept open. */
async function keptOpen(port: number, headers: Buffer[]): Promise<{ open: number; clients: DeviceClient[] }> {
  const clients: DeviceClient[] = [];
  for (const header of headers) {
    const c = await DeviceClient.open(port);
    c.send(header);
    clients.push(c);
    await pause(50);
  }
  await pause(300);
  return { open: clients.filter((c) => !c.closed).length, clients };
}

/** One raw HTTP exchange on a new connection (header first), the status code of the answer. */
function httpStatus(port: number, header: Buffer, path: string): Promise<number | null> {
  return new Promise((resolve) => {
    let text = '';
    const s = connect(port, '127.0.0.1', () => s.write(Buffer.concat([header, Buffer.from(`GET ${path} HTTP/1.1\r\nHost: device\r\nConnection: close\r\n\r\n`)])));
    s.setEncoding('utf8').on('data', (d: string) => (text += d));
    s.on('error', () => undefined);
    s.on('close', () => {
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text);
      resolve(status ? Number(status[1]) : null);
    });
  });
}

describe('DEVICE_PROXY_PROTOCOL=true', () => {
  let f: TrackerFixture;
  let port: number;
  let osmandPort: number;
  beforeAll(async () => {
    f = await startTrackerFixture('postgres', { DEVICE_PROXY_PROTOCOL: 'true', DEVICE_MAX_CONNECTIONS_PER_ADDRESS: '2', OSMAND_REPORTS_PER_MINUTE_PER_ADDRESS: '2' });
    port = f.tracker.ingest.ports.device!;
    osmandPort = f.tracker.ingest.ports.osmand!;
    const account = await f.account('Proxied');
    await f.device(account, '359633100000901');
    await f.device(account, '359633100000902');
  });
  afterAll(() => f.close());

  test("version 1: the per-address cap counts the header's address, not the balancer's", async () => {
    const a = await keptOpen(port, [proxyV1('203.0.113.7', 40001), proxyV1('203.0.113.7', 40002), proxyV1('203.0.113.7', 40003)]);
    const b = await keptOpen(port, [proxyV1('203.0.113.8'), proxyV1('203.0.113.8')]);
    expect([a.open, b.open]).toEqual([2, 2]); // all from 127.0.0.1, yet two addresses of two each
    expect(await refused(f, 'address')).toBe(1);
    // IPv6, spelled two ways, is one address.
    const c = await keptOpen(port, [proxyV1('2001:DB8:0::1'), proxyV1('2001:db8::0:1'), proxyV1('2001:db8::1')]);
    expect(c.open).toBe(2);
    expect(await refused(f, 'address')).toBe(2);
    for (const x of [...a.clients, ...b.clients, ...c.clients]) x.close();
  });

  test('version 2: the address counts, and a LOCAL header (a health check) stands for the balancer itself', async () => {
    const a = await keptOpen(port, [proxyV2('198.51.100.4'), proxyV2('198.51.100.4', 40001, 64), proxyV2('198.51.100.4')]);
    expect(a.open).toBe(2);
    const local = await keptOpen(port, [proxyV2('local'), proxyV2('local')]);
    expect(local.open).toBe(2);
    for (const x of [...a.clients, ...local.clients]) x.close();
  });

  test("the device's bytes after the header, in the same packet or split across several, reach its protocol", async () => {
    const together = await DeviceClient.open(port);
    together.send(Buffer.concat([proxyV1('192.0.2.10'), gt06Login('359633100000901', 1)]));
    expect((await together.read(10)).subarray(0, 4).toString('hex')).toBe('78780501');
    const split = await DeviceClient.open(port);
    const bytes = Buffer.concat([proxyV2('192.0.2.11'), gt06Login('359633100000902', 1)]);
    const cuts = [0, 3, 13, 20, 31, bytes.length]; // inside the signature, the length, the address, the login
    for (let i = 1; i < cuts.length; i++) {
      split.send(bytes.subarray(cuts[i - 1], cuts[i]));
      await pause(60);
    }
    expect((await split.read(10)).subarray(0, 4).toString('hex')).toBe('78780501');
    together.close();
    split.close();
  });

  test('no header, a malformed one, or one longer than the limit: refused at once and counted; nothing reaches the device protocol', async () => {
    const before = (await refused(f, 'proxy_header')) ?? 0;
    const bare = await DeviceClient.open(port);
    bare.send(gt06Login('359633100000901', 1));
    const malformed = await DeviceClient.open(port);
    malformed.send('PROXY TCP4 999.0.113.7 127.0.0.1 40000 5000\r\n');
    const unknownFamily = await DeviceClient.open(port);
    unknownFamily.send('PROXY UDP4 203.0.113.7 127.0.0.1 40000 5000\r\n');
    const endless = await DeviceClient.open(port);
    endless.send(`PROXY TCP4 ${'1'.repeat(200)}`);
    const huge = await DeviceClient.open(port);
    huge.send(proxyV2('198.51.100.9', 40000, 600));
    for (const c of [bare, malformed, unknownFamily, endless, huge]) expect(await c.waitClosed(1000)).toBe(true);
    expect(bare.pending().length).toBe(0); // no login ACK
    expect(await refused(f, 'proxy_header')).toBe(before + 5);
  });

  test('a header trickled a byte at a time is cut at the header deadline, long before the login deadline', async () => {
    const before = (await refused(f, 'proxy_header')) ?? 0;
    const slow = await DeviceClient.open(port);
    const header = proxyV1('203.0.113.50');
    let i = 0;
    const timer = setInterval(() => (i < header.length && !slow.closed ? slow.send(header.subarray(i, ++i)) : clearInterval(timer)), 250);
    const opened = Date.now();
    expect(await slow.waitClosed(6000)).toBe(true);
    clearInterval(timer);
    expect(Date.now() - opened).toBeGreaterThanOrEqual(2800);
    expect(Date.now() - opened).toBeLessThan(5000);
    expect(await refused(f, 'proxy_header')).toBe(before + 1);
  });

  test("OsmAnd: the report budget is the header's address's; a request without a header gets no answer", async () => {
    const report = (i: number) => `/?${osmandQueryString('359633100000901', fix(i))}`;
    const first = [await httpStatus(osmandPort, proxyV1('203.0.113.20'), report(1)), await httpStatus(osmandPort, proxyV1('203.0.113.20'), report(2)), await httpStatus(osmandPort, proxyV1('203.0.113.20'), report(3))];
    expect(first).toEqual([200, 200, 429]);
    expect(await httpStatus(osmandPort, proxyV2('203.0.113.21'), report(4))).toBe(200);
    const before = (await refused(f, 'proxy_header')) ?? 0;
    expect(await httpStatus(osmandPort, Buffer.alloc(0), report(5))).toBeNull();
    expect(await refused(f, 'proxy_header')).toBe(before + 1);
  });
});
