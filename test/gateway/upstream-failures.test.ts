// When the tracker cannot answer, the client gets 502 {"error": "tracking backend unavailable"}:
// refused, reset, unresolvable, or silent past UPSTREAM_TIMEOUT_MS. Never a hang or a stack.
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { freePort } from '../helpers/ports.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { startStandInTracker, type StandInTracker } from '../helpers/stand-in-tracker.js';

const TIMEOUT_MS = 300;
const v1 = '/api/public/v1';
let keys: StandInTracker; // supplies keys and tokens; its server is not the target here
const open: Gateway[] = [];
type Gateway = TestGateway;

/** A backend that confirms tokens but misbehaves on everything else, as `mode` says. */
async function brokenBackend(mode: 'hang' | 'reset' | 'early'): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const token = /^\/internal\/tokens\/(.+)$/.exec(req.url ?? '');
    if (token) return void res.setHeader('content-type', 'application/json').end(JSON.stringify({ id: token[1], active: true, accountId: 'acc_up' }));
    if (mode === 'reset') req.socket.destroy();
    // 'early': answers before reading the body
    if (mode === 'early') res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"no such webhook"}');
    // 'hang': accept and never answer
  });
  server.on('connection', (s) => (sockets.add(s), s.on('close', () => sockets.delete(s))));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => (server.close(() => resolve()), sockets.forEach((s) => s.destroy()))),
  };
}

function gatewayTo(url: string): Gateway {
  const g = startTestGateway({ ...keys, url }, { UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS) });
  open.push(g);
  return g;
}

async function expect502(g: Gateway, path: string, method: 'get' | 'post' = 'get') {
  const { token } = keys.mint('acc_up', ['read', 'commands']);
  const started = Date.now();
  const res = await request(g.app)[method](path).set('Authorization', `Bearer ${token}`);
  expect(res.status).toBe(502);
  expect(res.body.error).toBe('tracking backend unavailable');
  expect(res.headers['content-type']).toMatch(/application\/json/);
  expect(res.text).not.toMatch(/127\.0\.0\.1|ECONN|at .*\.js|invalid/);
  expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 2000);
}

beforeAll(async () => {
  keys = await startStandInTracker();
});
afterAll(async () => {
  await Promise.all(open.map((g) => g.close()));
  await keys.close();
});

describe('502 when the tracker cannot answer', () => {
  it('on a refused port: token routes, docs and inbound alike', async () => {
    const g = gatewayTo(`http://127.0.0.1:${await freePort()}`);
    await expect502(g, `${v1}/devices`);
    await expect502(g, '/api-docs');
    await expect502(g, '/api/inbound/inb_x?secret=s', 'post');
  });

  it('on a backend that accepts and never answers, after UPSTREAM_TIMEOUT_MS', async () => {
    const backend = await brokenBackend('hang');
    try {
      const g = gatewayTo(backend.url);
      const started = Date.now();
      await expect502(g, `${v1}/devices`);
      expect(Date.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
      await expect502(g, `${v1}/devices/dev_1/locate`, 'post');
    } finally {
      await backend.close();
    }
  });

  it('on a backend that resets the connection', async () => {
    const backend = await brokenBackend('reset');
    try {
      await expect502(gatewayTo(backend.url), `${v1}/alerts`);
    } finally {
      await backend.close();
    }
  });

  it('on a host that cannot be resolved', async () => {
    await expect502(gatewayTo('http://tracker.invalid:8081'), `${v1}/devices`);
    await expect502(gatewayTo('http://tracker.invalid:8081'), '/api-docs/openapi.json');
  });

  it('logs the cause without leaking it to the client', async () => {
    const g = gatewayTo(`http://127.0.0.1:${await freePort()}`);
    await request(g.app).get('/api-docs');
    expect(g.logs.some((l) => l.includes('tracking backend unavailable') && l.includes('ECONNREFUSED'))).toBe(true);
  });
});

describe('an answer that comes before the whole body', () => {
  it('closes the client connection, so nothing waits behind the unread rest of the body', async () => {
    const backend = await brokenBackend('early');
    const server = createServer(gatewayTo(backend.url).app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      // Headers and the first kilobyte of a declared 64 KiB body; the rest is held back.
      const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/api/inbound/inb_x?secret=s', headers: { 'content-type': 'application/json', 'content-length': 65536 } });
      req.write(Buffer.alloc(1024, 0x20));
      const res = await new Promise<IncomingMessage>((resolve, reject) => req.once('response', resolve).once('error', reject));
      res.resume();
      expect(res.statusCode).toBe(404);
      expect(res.headers.connection).toBe('close');
      req.destroy();
      // A body that arrived whole keeps the connection for the next request.
      const small = await request(server).post('/api/inbound/inb_x?secret=s').set('connection', 'keep-alive').send({ a: 1 });
      expect(small.status).toBe(404);
      expect(small.headers.connection).toBe('keep-alive');
    } finally {
      await new Promise((r) => server.close(r));
      await backend.close();
    }
  });
});
