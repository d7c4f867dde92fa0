// A phone (OsmAnd over HTTP) keeps its connection between reports, as a TCP unit does: a phone
// reporting every 10 s must not pay a new TCP (and, through a TLS terminator, TLS) handshake for
// every report. Reports some seconds apart ride one kept-alive connection and are all stored. A
// connection that sends no whole request within LOGIN_TIMEOUT_SECONDS of opening is closed, as on
// the TCP ports, whether it sends nothing or trickles a request.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { Agent } from 'node:http';
import { connect } from 'node:net';
import { osmandQueryString } from '../../tracker/simulator/frames/osmand.js';
import { phoneReport } from '../helpers/device-client.js';
import { startTrackerFixture, type TrackerFixture } from '../helpers/tracker-app.js';

const IMEI = '359633100000505';
const fix = (i: number) => ({ time: new Date(Date.now() - 60_000 + i * 1000), lat: 52.52 + i / 10000, lng: 13.405, speed: 30, heading: 90 });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("a phone's connection", () => {
  let f: TrackerFixture;
  let device: string;

  beforeAll(async () => {
    f = await startTrackerFixture('postgres', { LOGIN_TIMEOUT_SECONDS: '2' });
    device = await f.device(await f.account('Phones'), IMEI, 'Phone');
  }, 120_000);
  afterAll(() => f.close());

  test('reports 7 s apart ride one kept-alive connection, past the first-request deadline, and each is stored', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const port = f.tracker.ingest.ports.osmand!;
    try {
      expect(await phoneReport(agent, port, `/?${osmandQueryString(IMEI, fix(1))}`)).toEqual({ status: 200, reused: false });
      await sleep(7000);
      expect(await phoneReport(agent, port, `/?${osmandQueryString(IMEI, fix(2))}`)).toEqual({ status: 200, reused: true });
      await sleep(7000);
      expect(await phoneReport(agent, port, `/?${osmandQueryString(IMEI, fix(3))}`)).toEqual({ status: 200, reused: true });
    } finally {
      agent.destroy();
    }
    const stored = await f.tracker.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM positions WHERE device_id = $1', [device]);
    expect(stored[0]!.n).toBe(3);
  }, 30_000);

  test('a connection without a whole request is closed at the deadline, silent or trickling', async () => {
    const port = f.tracker.ingest.ports.osmand!;
    // `send` starts writing and gives back what stops it.
    const closedAfter = (send: (write: (text: string) => void) => () => void) =>
      new Promise<number>((resolve, reject) => {
        const opened = Date.now();
        let stop = () => undefined as void;
        const socket = connect(port, '127.0.0.1', () => (stop = send((text) => socket.write(text))));
        const giveUp = setTimeout(() => (socket.destroy(), reject(new Error('still open after 10 s'))), 10_000);
        socket.on('close', () => {
          stop();
          clearTimeout(giveUp);
          resolve(Date.now() - opened);
        });
      });
    const [silent, trickling] = await Promise.all([
      closedAfter(() => () => undefined),
      closedAfter((write) => {
        write('GET /?id=');
        const drip = setInterval(() => write('1'), 300);
        return () => clearInterval(drip);
      }),
    ]);
    for (const ms of [silent, trickling]) {
      expect(ms).toBeGreaterThanOrEqual(1900);
      expect(ms).toBeLessThan(4000);
    }
  }, 20_000);
});
