// Forwarding: what the tracker receives, what the client gets back, body streaming and its cap,
// routes without a token, unknown paths and methods, and secrets kept out of the logs.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { startStandInTracker, type StandInTracker } from '../helpers/stand-in-tracker.js';

let tracker: StandInTracker;
let gateway: TestGateway;
let account: string;
let device: string;
let token: string;
let tokenId: string;

beforeAll(async () => {
  tracker = await startStandInTracker();
  gateway = startTestGateway(tracker);
  account = 'acc_fwd';
  device = tracker.addDevice(account);
  ({ token, tokenId } = tracker.mint(account, ['read', 'commands']));
});
afterAll(async () => {
  await gateway.close();
  await tracker.close();
});

const v1 = '/api/public/v1';
const auth = () => ({ Authorization: `Bearer ${token}` });

describe('forwarding', () => {
  it('serves the tracker answer with no-store, a request id and no X-Powered-By', async () => {
    const res = await request(gateway.app).get(`${v1}/devices`).set(auth());
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(1);
    expect(res.body.data[0].id).toBe(device);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-powered-by']).toBeUndefined();
    expect(res.headers['x-request-id']).toMatch(/^[A-Za-z0-9._:-]+$/);
    expect(res.body.requestId).toBe(res.headers['x-request-id']);
  });

  it('passes the client request id on to the tracker', async () => {
    const res = await request(gateway.app).get(`${v1}/alerts`).set(auth()).set('X-Request-Id', 'client-req-42');
    expect(res.headers['x-request-id']).toBe('client-req-42');
    expect(res.body.requestId).toBe('client-req-42');
  });

  it('keeps the query string', async () => {
    const res = await request(gateway.app).get(`${v1}/alerts?status=open&since=2026-01-01T00:00:00Z`).set(auth());
    expect(res.body.query).toEqual({ status: 'open', since: '2026-01-01T00:00:00Z' });
  });

  it('drops client-sent identity headers and states its own, with the link secret', async () => {
    const res = await request(gateway.app)
      .get(`${v1}/devices`)
      .set(auth())
      .set('X-Account-Id', 'acc_victim')
      .set('X-Token-Id', 'tok_forged')
      .set('X-Token-Scopes', 'read write commands')
      .set('X-Gateway-Secret', 'guess');
    expect(res.status).toBe(200);
    expect(res.body.caller).toEqual({ accountId: account, tokenId, scopes: ['read', 'commands'] });
    expect(tracker.lastHeaders['x-gateway-secret']).toBe(tracker.gatewaySecret);
    expect(tracker.lastHeaders.authorization).toBeUndefined();
  });

  it('does not let a client pass identity headers on routes without a token', async () => {
    const hook = tracker.addInbound('s3cret');
    const res = await request(gateway.app).post(`/api/inbound/${hook}?secret=s3cret`).set('X-Account-Id', 'acc_victim').send({ amount: 1 });
    expect(res.status).toBe(200);
    expect(res.body.caller).toBeNull();
    expect(tracker.lastHeaders['x-account-id']).toBeUndefined();
  });

  it('passes dashboard cookies, form bodies, Set-Cookie and redirects through intact, with no token', async () => {
    const form = 'email=owner%40acme.test&password=secret&_csrf=x';
    const login = await request(gateway.app).post('/dashboard/login').type('form').send(form);
    expect(login.status).toBe(303);
    expect(login.headers.location).toBe('/dashboard/devices');
    expect(login.headers['set-cookie']).toEqual(['fleet_session=abc; Path=/dashboard; HttpOnly; SameSite=Lax']);
    expect(login.headers['x-body-bytes']).toBe(String(form.length));
    const page = await request(gateway.app).get('/dashboard/devices').set('Cookie', 'fleet_session=abc; other=1');
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ cookie: 'fleet_session=abc; other=1', caller: null });
  });

  it('states the client address and protocol it worked out, never ones the client sent', async () => {
    const res = await request(gateway.app).get('/dashboard/devices').set('X-Client-Address', '203.0.113.9').set('X-Client-Proto', 'https').set('X-Forwarded-Proto', 'https').set('X-Forwarded-For', '203.0.113.9');
    expect(res.body.clientAddress).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
    expect(res.body.clientProto).toBe('http');
    // Behind one trusted proxy (nginx), its X-Forwarded-* headers are believed.
    const proxied = startTestGateway(tracker, { TRUST_PROXY_HOPS: '1' });
    try {
      const behind = await request(proxied.app).get('/dashboard/devices').set('X-Forwarded-Proto', 'https').set('X-Forwarded-For', '203.0.113.9');
      expect(behind.body).toMatchObject({ clientAddress: '203.0.113.9', clientProto: 'https' });
    } finally {
      await proxied.close();
    }
  });

  it('streams a POST body through whole', async () => {
    const body = JSON.stringify({ note: 'x'.repeat(200_000) });
    const res = await request(gateway.app).post(`${v1}/devices/${device}/locate`).set(auth()).set('Content-Type', 'application/json').send(body);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true, queued: true, bodyBytes: Buffer.byteLength(body) });
  });

  it('refuses a declared body over 1 MiB with 413 before forwarding', async () => {
    const before = tracker.hits;
    const res = await request(gateway.app)
      .post(`${v1}/devices/${device}/locate`)
      .set(auth())
      .set('Content-Type', 'application/json')
      .send(Buffer.alloc(1024 * 1024 + 1, 0x20));
    expect(res.status).toBe(413);
    expect(typeof res.body.error).toBe('string');
    expect(tracker.hits).toBe(before);
  });

  it('accepts exactly 1 MiB', async () => {
    const res = await request(gateway.app).post(`${v1}/devices/${device}/locate`).set(auth()).send(Buffer.alloc(1024 * 1024, 0x20));
    expect(res.status).toBe(200);
    expect(res.body.bodyBytes).toBe(1024 * 1024);
  });

  it('counts a chunked body as it streams and answers 413 past 1 MiB', async () => {
    const req = request(gateway.app).post(`${v1}/devices/${device}/locate`).set(auth()).set('Transfer-Encoding', 'chunked');
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    for (let i = 0; i < 20; i++) req.write(chunk);
    const res = await req;
    expect(res.status).toBe(413);
    expect(typeof res.body.error).toBe('string');
  });

  it('forwards a small chunked body', async () => {
    const req = request(gateway.app).post(`${v1}/devices/${device}/locate`).set(auth()).set('Transfer-Encoding', 'chunked');
    req.write(Buffer.alloc(1000, 0x20));
    req.write(Buffer.alloc(1000, 0x20));
    const res = await req;
    expect(res.status).toBe(200);
    expect(res.body.bodyBytes).toBe(2000);
  });
});

describe('routes without a bearer token', () => {
  it('forwards /api-docs and the OpenAPI document without a token', async () => {
    const page = await request(gateway.app).get('/api-docs');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<title>');
    const doc = await request(gateway.app).get('/api-docs/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe('3.1.0');
    expect((await request(gateway.app).get('/api-docs/init.js')).status).toBe(200);
    const asset = await request(gateway.app).get('/api-docs/assets/swagger-ui.css');
    expect(asset.status).toBe(200);
    expect(asset.text).toContain('swagger-ui.css');
  });

  it('forwards an inbound webhook with its secret; the tracker checks it', async () => {
    const hook = tracker.addInbound('s3cret');
    const ok = await request(gateway.app).post(`/api/inbound/${hook}?secret=s3cret`).send({ deviceId: device, amount: 12.5 });
    expect(ok.status).toBe(200);
    expect(ok.body.bodyBytes).toBeGreaterThan(0);
    const wrong = await request(gateway.app).post(`/api/inbound/${hook}?secret=nope`).send({});
    expect(wrong.status).toBe(401);
  });
});

describe('unknown paths and methods', () => {
  it('answers 404 {error} for an unknown path', async () => {
    for (const path of ['/', '/api/public/v2/devices', `${v1}/devices/`, '/internal/tokens/tok_x', `${v1}/devices/..%2F..%2Finternal`]) {
      const res = await request(gateway.app).get(path).set(auth());
      expect(res.status).toBe(404);
      expect(typeof res.body.error).toBe('string');
    }
  });

  it("answers its own errors with no-store, a request id and no X-Powered-By", async () => {
    for (const res of [await request(gateway.app).get('/nope'), await request(gateway.app).get(`${v1}/devices`), await request(gateway.app).put(`${v1}/alerts`)]) {
      expect([404, 401, 405]).toContain(res.status);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['x-request-id']).toBeDefined();
      expect(res.headers['x-powered-by']).toBeUndefined();
      expect(res.headers['content-type']).toMatch(/application\/json/);
    }
  });

  it('refuses dot segments as ids', async () => {
    const res = await request(gateway.app).get(`${v1}/devices/..`).set(auth());
    expect(res.status).toBe(404);
  });

  it('answers 405 with Allow for a known path and another method', async () => {
    const del = await request(gateway.app).delete(`${v1}/devices`).set(auth());
    expect(del.status).toBe(405);
    expect(del.headers.allow).toBe('GET, POST');
    expect(typeof del.body.error).toBe('string');
    const get = await request(gateway.app).get(`${v1}/devices/${device}/locate`).set(auth());
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');
  });

  it('answers /healthz', async () => {
    const res = await request(gateway.app).get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('ok');
  });
});

describe('logs', () => {
  it('never contain a token or an inbound secret', async () => {
    const hook = tracker.addInbound('very-secret-value');
    await request(gateway.app).post(`/api/inbound/${hook}?secret=very-secret-value`).send({});
    await request(gateway.app).get(`${v1}/devices`).set(auth());
    await request(gateway.app).get(`${v1}/devices`).set('Authorization', 'Bearer not.a.token');
    const text = gateway.logs.join('\n');
    expect(text).toContain(hook);
    expect(text).toContain('secret=[redacted]');
    expect(text).not.toContain('very-secret-value');
    expect(text).not.toContain(token);
    expect(text).not.toContain(token.split('.')[2]!);
    expect(text).not.toContain(tracker.gatewaySecret);
  });
});
