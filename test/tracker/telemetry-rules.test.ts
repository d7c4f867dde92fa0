// Custom rules over the telemetry vocabulary, through the tracker's API on PostgreSQL: a condition
// naming an attribute outside the vocabulary is a 400 that names it and suggests the closest key;
// raw values are reachable under attributes.io; and a rule on a vocabulary key (external power
// below 11 V) fires end to end from a Teltonika device on a real TCP socket.
import { describe, expect, test, beforeAll, afterAll } from '@jest/globals';
import { fmbIo, teltonikaAvl, teltonikaHandshake } from '../../tracker/simulator/frames/teltonika.js';
import { DeviceClient, eventually } from '../helpers/device-client.js';
import { assertMatchesDocument } from '../helpers/openapi.js';
import { startTrackerFixture, type TrackerFixture } from '../helpers/tracker-app.js';

let f: TrackerFixture;
let acme: string;
let van: string;
const IMEI = '359633100000901';
const V1 = '/api/public/v1';
const T0 = Math.floor(Date.now() / 1000) * 1000 - 600_000;
const rule = (condition: object) => ({ name: 'Low external power', severity: 'critical', condition });

beforeAll(async () => {
  f = await startTrackerFixture('postgres');
  acme = await f.account('Acme');
  van = await f.device(acme, IMEI, 'Van');
});
afterAll(() => f.close());

describe('rule variables are checked against the vocabulary', () => {
  test.each<[string, object, RegExp]>([
    ['a misspelt key', { '<': [{ var: 'attributes.fule' }, 10] }, /"condition": unknown attribute "attributes\.fule": did you mean "attributes\.fuel"\?/],
    ["Traccar's hours (ms), which is engineHours here", { '>': [{ var: 'attributes.hours' }, 1] }, /unknown attribute "attributes\.hours": did you mean/],
    ['a key inside missing', { missing: ['attributes.ignition', 'attributes.powr'] }, /unknown attribute "attributes\.powr": did you mean "attributes\.power"\?/],
    ['a key with a default', { '>': [{ var: ['attributes.tmp1', 0] }, 5] }, /unknown attribute "attributes\.tmp1": did you mean "attributes\.temp1"\?/],
  ])('400 for %s', async (_name, condition, message) => {
    const res = await f.as(acme).post(`${V1}/rules`).send(rule(condition));
    expect({ status: res.status, error: res.body.error }).toMatchObject({ status: 400, error: expect.stringMatching(message) });
    assertMatchesDocument('post', `${V1}/rules`, 400, res.body);
  });

  test('vocabulary keys, numbered keys and anything under io are accepted', async () => {
    for (const condition of [{ '<': [{ var: 'attributes.power' }, 11] }, { '>': [{ var: 'attributes.temp3' }, 8] }, { '==': [{ var: 'attributes.io.385' }, 'ff'] }, { in: ['sos', { var: 'attributes.alarm' }] }]) {
      const res = await f.as(acme).post(`${V1}/rules`).send(rule(condition));
      expect(res.status).toBe(201);
      await f.as(acme).delete(`${V1}/rules/${res.body.id}`);
    }
  });
});

describe('a rule on external power', () => {
  test('fires once when a Teltonika unit reports less than 11 V, with its alert', async () => {
    const created = await f.as(acme).post(`${V1}/rules`).send(rule({ '<': [{ var: 'attributes.power' }, 11] }));
    expect(created.status).toBe(201);
    const d = await DeviceClient.open(f.tracker.ingest.ports.device!);
    d.send(teltonikaHandshake(IMEI));
    expect(await d.read(1)).toEqual(Buffer.from([1]));
    for (const [s, volts] of [[0, 12.6], [10, 10.8], [20, 10.5]] as const) {
      const fix = { time: new Date(T0 + s * 1000), lat: 52.52, lng: 13.405, speed: 30, heading: 90, satellites: 9 };
      d.send(teltonikaAvl([{ fix, io: fmbIo({ power: volts }) }], 0x8e));
      expect(await d.read(4)).toEqual(Buffer.from([0, 0, 0, 1]));
    }
    d.close();
    type Event = { deviceId: string; data: Record<string, unknown>; alert: { severity: string } | null; position: { timestamp: string } | null };
    const list = async () => ((await f.as(acme).get(`${V1}/events?type=custom_rule_triggered`)).body.data as Event[]).filter((e) => e.data.ruleId === created.body.id);
    const fired = await eventually(list, (l) => l.length > 0);
    expect(fired).toHaveLength(1);
    expect(fired[0]).toMatchObject({ deviceId: van, data: { ruleId: created.body.id, ruleName: 'Low external power' }, alert: { severity: 'critical' }, position: { timestamp: new Date(T0 + 10_000).toISOString() } });
  });
});
