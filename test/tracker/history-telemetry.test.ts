// Position history with its telemetry, through a real gateway over HTTP on both engines: `fields=full`
// adds valid, altitude, satellites, the attributes (as stored, in the vocabulary's units) and the
// filter flag when set; the default and `fields=lean` are the spec's five fields, byte for byte what
// the history gave before there was a choice.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createPublicKey } from 'node:crypto';
import request from 'supertest';
import { createGateway, type Gateway } from '../../gateway/app.js';
import { parseConfig } from '../../shared/config.js';
import { createLogger } from '../../shared/logger.js';
import { runVerb } from '../../tracker/admin/verbs.js';
import { insertPositions } from '../../tracker/positions/repository.js';
import type { DecodedPosition } from '../../tracker/protocols/types.js';
import { ENGINES } from '../helpers/databases.js';
import { uniquePrefix } from '../helpers/gateway.js';
import { assertMatchesDocument } from '../helpers/openapi.js';
import { startTrackerFixture, type TrackerFixture } from '../helpers/tracker-app.js';

const T0 = Date.parse('2026-11-20T08:00:00Z');
const RANGE = 'from=2026-11-20T00:00:00Z&to=2026-11-21T00:00:00Z';

const at = (minutes: number, p: Partial<DecodedPosition>): DecodedPosition => ({
  deviceTime: new Date(T0 + minutes * 60_000), valid: true, lat: 52.52, lng: 13.405, speed: 0, heading: 0, attributes: {}, ...p,
});

describe.each(ENGINES)('history with telemetry on %s', (engine) => {
  let f: TrackerFixture;
  let gateway: Gateway;
  let token: string;
  let van: string;

  beforeAll(async () => {
    f = await startTrackerFixture(engine);
    const ctx = f.tracker.ctx;
    gateway = createGateway({
      config: parseConfig({ TRACKER_URL: `http://127.0.0.1:${f.tracker.httpPort}`, REDIS_URL: 'redis://127.0.0.1:6379', RATE_LIMIT_PREFIX: uniquePrefix(), LOG_LEVEL: 'silent' }),
      logger: createLogger('gateway', 'silent'),
      publicKey: createPublicKey(ctx.privateKey),
      gatewaySecret: ctx.gatewaySecret,
    });
    const acme = await f.account('Acme');
    van = await f.device(acme, '359633100000501', 'Van');
    token = ((await runVerb(ctx, 'tokens create', { account: acme, scopes: 'read' })) as { token: string }).token;
    await insertPositions(ctx.db, [
      { deviceId: van, position: at(0, { speed: 36.00288, heading: 96.1, altitude: 35.5, satellites: 9, attributes: { ignition: true, power: 12.6, temp1: -4.5, engineHours: 3600, alarm: 'powerCut,sos', io: { '239': 1, status: 'ff' } } }) },
      // No fix: the coordinates are the last the unit held; no altitude or satellites reported.
      { deviceId: van, position: at(1, { valid: false, attributes: { batteryLevel: 80 } }) },
      { deviceId: van, position: at(2, { lat: 48.85, lng: 2.35, speed: 12.5, heading: 270, altitude: -3, satellites: 4 }), filtered: 'jump' },
    ]);
  }, 60_000);
  afterAll(async () => {
    await gateway?.close();
    await f?.close();
  });

  const get = (query: string) => request(gateway.app).get(`/api/public/v1/devices/${van}/positions?${RANGE}${query}`).set('Authorization', `Bearer ${token}`);

  test('fields=full carries the fix, its telemetry and the filter flag, streamed and paged', async () => {
    const expected = [
      { lat: 52.52, lng: 13.405, speed: 36.00288, heading: 96.1, timestamp: '2026-11-20T08:00:00.000Z', valid: true, altitude: 35.5, satellites: 9, attributes: { ignition: true, power: 12.6, temp1: -4.5, engineHours: 3600, alarm: 'powerCut,sos', io: { '239': 1, status: 'ff' } } },
      { lat: 52.52, lng: 13.405, speed: 0, heading: 0, timestamp: '2026-11-20T08:01:00.000Z', valid: false, altitude: null, satellites: null, attributes: { batteryLevel: 80 } },
      { lat: 48.85, lng: 2.35, speed: 12.5, heading: 270, timestamp: '2026-11-20T08:02:00.000Z', valid: true, altitude: -3, satellites: 4, attributes: {}, filtered: 'jump' },
    ];
    const streamed = await get('&fields=full');
    expect(streamed.status).toBe(200);
    assertMatchesDocument('get', '/api/public/v1/devices/{id}/positions', 200, streamed.body);
    expect(streamed.body).toEqual({ data: expected });

    const first = await get('&fields=full&limit=2');
    const rest = await get(`&fields=full&limit=2&cursor=${first.body.nextCursor}`);
    for (const page of [first, rest]) assertMatchesDocument('get', '/api/public/v1/devices/{id}/positions', 200, page.body);
    expect([...first.body.data, ...rest.body.data]).toEqual(expected);
    expect(rest.body.nextCursor).toBeNull();

    // The units, as the served document states them for each attribute.
    const doc = await request(gateway.app).get('/api-docs/openapi.json');
    const telemetry = doc.body.components.schemas.Telemetry.properties as Record<string, { description: string }>;
    expect(telemetry.power!.description).toBe('External power voltage (V)');
    expect(telemetry.engineHours!.description).toBe('Engine running time (s)');
    expect(telemetry.ignition!.description).toBe('Ignition (ACC line) on');
    expect(doc.body.components.schemas.Telemetry.description).toMatch(/temp<n> \(°C\)/);
  });

  test('the default and fields=lean are the five fields, byte for byte as before', async () => {
    // The history's bytes as the tracker wrote them before `fields` existed: PostgreSQL's text of each number.
    const rows = await f.tracker.ctx.db.query<Record<string, string>>(
      `SELECT lat::text AS lat, lng::text AS lng, speed::text AS speed, heading::text AS heading, to_char(device_time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS t
       FROM positions WHERE device_id = $1 ORDER BY device_time`,
      [van],
    );
    const before = `{"data":[${rows.map((r) => `{"lat":${r.lat},"lng":${r.lng},"speed":${r.speed},"heading":${r.heading},"timestamp":"${r.t}"}`).join(',')}]}`;
    for (const query of ['', '&fields=lean']) {
      const res = await get(query).buffer(true).parse((r, done) => {
        let text = '';
        r.on('data', (c: Buffer) => (text += c.toString('utf8')));
        r.on('end', () => done(null, text));
      });
      expect(res.status).toBe(200);
      expect(res.body).toBe(before);
    }
    const paged = await get('&fields=lean&limit=3');
    expect(paged.body.data).toEqual(JSON.parse(before).data);
  });

  test('an unknown shape is a 400 naming the parameter and its values', async () => {
    const res = await get('&fields=everything');
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid query parameter "fields": must be one of lean, full');
  });
});
