// nginx-stream.conf on the machine's nginx in front of two real trackers (DEVICE_PROXY_PROTOCOL):
// device connections spread over both (least_conn), each tracker sees the device's own address in
// nginx's PROXY protocol header (per-address caps count devices, not nginx), GT06 units get their
// ACKs and OsmAnd phones their answers through it on every device port.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROTOCOL_PORTS, portSetting } from '../../shared/config.js';
import { gt06Login } from '../../tracker/simulator/frames/gt06.js';
import { osmandQueryString } from '../../tracker/simulator/frames/osmand.js';
import { DeviceClient, eventually } from '../helpers/device-client.js';
import { openMany } from '../helpers/hostile-connection.js';
import { findProgram, makeCertificates, startNginx, type Nginx } from '../helpers/nginx.js';
import { freePort } from '../helpers/ports.js';
import { startTrackerFixture, type TrackerFixture } from '../helpers/tracker-app.js';

const nginxBinary = findProgram('nginx');
const openssl = findProgram('openssl');
if (!nginxBinary || !openssl) process.stderr.write(`nginx-stream.test.ts skipped: ${!nginxBinary ? 'nginx' : 'openssl'} is not installed (apt-get install nginx openssl)\n`);
const suite = nginxBinary && openssl ? describe : describe.skip;

/** Every device port on a port of its own (0 would leave the protocols' own ports closed). */
async function devicePortSettings(): Promise<Record<string, string>> {
  const names = ['DEVICE_PORT', 'OSMAND_PORT', ...Object.keys(PROTOCOL_PORTS).map(portSetting)];
  return Object.fromEntries(await Promise.all(names.map(async (n) => [n, String(await freePort())])));
}

suite('nginx stream {} in front of two trackers', () => {
  let dir: string;
  let trackers: TrackerFixture[];
  let nginx: Nginx;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fleet-stream-'));
    const settings = { DEVICE_PROXY_PROTOCOL: 'true', DEVICE_MAX_CONNECTIONS_PER_ADDRESS: '2' };
    trackers = await Promise.all([0, 1].map(async () => startTrackerFixture('postgres', { ...settings, ...(await devicePortSettings()) })));
    nginx = await startNginx({ nginx: nginxBinary!, gateway: '127.0.0.1:9', certificates: makeCertificates(dir), trackers: trackers.map((t) => t.tracker.ingest.ports) });
    for (const t of trackers) await t.device(await t.account('Fleet'), '359633100000951');
  });
  afterAll(async () => {
    await nginx?.stop();
    await Promise.all((trackers ?? []).map((t) => t.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  const connected = () => trackers.map((t) => t.tracker.ingest.deps.stats.connections);

  test('spreads connections over both trackers, each counting them by the device address nginx passes on', async () => {
    // Two sources of three: per-address cap 2, held by each tracker for what it sees.
    const a = await openMany(nginx.devicePorts.device!, 4, '127.0.0.2');
    const counts = await eventually(async () => connected(), (c) => c[0]! + c[1]! === 4);
    expect(counts).toEqual([2, 2]); // least_conn: never three on one while the other has one
    // Each tracker holds two of 127.0.0.2's: a fifth from it is refused wherever it lands.
    const fifth = await openMany(nginx.devicePorts.device!, 1, '127.0.0.2');
    expect(fifth.closed.length).toBe(1);
    const b = await openMany(nginx.devicePorts.device!, 2, '127.0.0.3');
    expect(b.open.length).toBe(2);
    expect(a.open.length).toBe(4);
    for (const s of [...a.open, ...b.open]) s.destroy();
    await eventually(async () => connected(), (c) => c[0]! + c[1]! === 0);
  });

  test('a GT06 unit on its own port gets its login ACK through nginx', async () => {
    const unit = await DeviceClient.open(nginx.devicePorts.gt06!);
    unit.send(gt06Login('359633100000951', 1));
    expect((await unit.read(10)).subarray(0, 4).toString('hex')).toBe('78780501');
    unit.close();
  });

  test('an OsmAnd phone gets its answer through nginx', async () => {
    const status = await new Promise<string>((resolve) => {
      let text = '';
      const s = connect(nginx.devicePorts.osmand!, '127.0.0.1', () =>
        s.write(`GET /?${osmandQueryString('359633100000951', { time: new Date(), lat: 52.5, lng: 13.4, speed: 10, heading: 0 })} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`),
      );
      s.setEncoding('utf8').on('data', (d: string) => (text += d));
      s.on('close', () => resolve(text.split('\r\n')[0]!));
    });
    expect(status).toBe('HTTP/1.1 200 OK');
  });
});
