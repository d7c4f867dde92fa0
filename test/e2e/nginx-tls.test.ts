// The production topology as native processes: the project's nginx.conf on the machine's nginx with
// a throwaway CA, in front of real gateway and tracker processes. The client trusts that CA only.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { MAX_BODY_BYTES } from '../../gateway/body-limit.js';
import { gt06Login, gt06Position } from '../../tracker/simulator/frames/gt06.js';
import { DeviceClient, eventually } from '../helpers/device-client.js';
import { findProgram, makeCertificates, startNginx, type Certificates, type Nginx } from '../helpers/nginx.js';
import { startService, stopAllServices, type Service } from '../helpers/processes.js';
import { createStack, type Stack } from '../helpers/stack.js';

const nginxBinary = findProgram('nginx');
const openssl = findProgram('openssl');
if (!nginxBinary || !openssl) {
  // CI installs both (.ci/run); a machine without them skips this file rather than failing it.
  process.stderr.write(`nginx-tls.test.ts skipped: ${!nginxBinary ? 'nginx' : 'openssl'} is not installed (apt-get install nginx openssl)\n`);
}
const suite = nginxBinary && openssl ? describe : describe.skip;

const INBOUND = '/api/inbound/whk_e2e000000000000000000';
const secrets: string[] = [];
/** An inbound webhook call with a fresh secret in its query string, as integrators send them. */
const inboundPath = () => {
  const secret = `s3cr3t${secrets.length}x${Math.random().toString(36).slice(2)}`;
  secrets.push(secret);
  return `${INBOUND}?secret=${secret}`;
};

let stack: Stack;
let dir: string;
let certificates: Certificates;
let tracker: Awaited<ReturnType<Stack['startTracker']>>;
let gateway: Service;
let nginx: Nginx;
let token: string;
let imei: string;

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  tls: { protocol: string | null; cipher: string };
}

interface CallOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
  /** Trust this CA (the default: the test CA); null: the system's trust store only. */
  ca?: string | null;
  maxVersion?: 'TLSv1.2' | 'TLSv1.3';
}

function call(path: string, opts: CallOptions = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: '127.0.0.1',
        port: nginx.httpsPort,
        servername: 'localhost',
        path,
        method: opts.method ?? 'GET',
        headers: { host: `localhost:${nginx.httpsPort}`, ...opts.headers },
        ...(opts.ca === null ? {} : { ca: opts.ca ?? certificates.caPem }),
        maxVersion: opts.maxVersion,
        agent: false,
      },
      (res) => {
        const socket = res.socket as TLSSocket;
        const tls = { protocol: socket.getProtocol(), cipher: socket.getCipher().standardName };
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body, tls }));
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

const authorized = { Authorization: '' };

suite('nginx with TLS in front of the gateway and the tracker', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fleet-tls-'));
    certificates = makeCertificates(dir);
    stack = await createStack();
    const account = await stack.account('Fleet');
    imei = '359633100000901';
    await stack.device(account, imei);
    token = await stack.token(account, 'read');
    authorized.Authorization = `Bearer ${token}`;
    tracker = await stack.startTracker();
    gateway = await startService('gateway/main.ts', { ...stack.gatewayEnv(tracker.port), TRUST_PROXY_HOPS: '1', UPSTREAM_TIMEOUT_MS: '1000', RATE_LIMIT_DOCS_PER_MINUTE: '5' });
    nginx = await startNginx({ nginx: nginxBinary!, gateway: `127.0.0.1:${gateway.port}`, certificates });
  }, 60_000);

  afterAll(async () => {
    await nginx?.stop();
    await stopAllServices();
    await stack?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the public API answers over TLS 1.3 and 1.2, with HSTS, for a client trusting the test CA', async () => {
    const res = await call('/api/public/v1/devices', { headers: authorized });
    expect(res.status).toBe(200);
    expect((JSON.parse(res.body) as { data: { imei: string }[] }).data.map((d) => d.imei)).toEqual([imei]);
    expect(res.headers['strict-transport-security']).toBe('max-age=63072000');
    expect(res.headers['x-request-id']).toBeDefined(); // the gateway's answer, through nginx
    expect(res.tls.protocol).toBe('TLSv1.3');

    const tls12 = await call('/api/public/v1/devices', { headers: authorized, maxVersion: 'TLSv1.2' });
    expect(tls12.status).toBe(200);
    expect(tls12.tls.protocol).toBe('TLSv1.2');
    expect(tls12.tls.cipher).toMatch(/^TLS_ECDHE_(ECDSA|RSA)_WITH_(AES_(128|256)_GCM_SHA(256|384)|CHACHA20_POLY1305_SHA256)$/);
  });

  test('the live feed passes through nginx as each event comes, on a stream that stays open', async () => {
    let text = '';
    const req = https.request(
      { host: '127.0.0.1', port: nginx.httpsPort, servername: 'localhost', path: '/api/public/v1/stream?kinds=position', headers: { host: `localhost:${nginx.httpsPort}`, ...authorized }, ca: certificates.caPem, agent: false },
      (res) => {
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
      },
    );
    req.end();
    await eventually(async () => text, (t) => t.startsWith('retry:'));
    const d = await DeviceClient.open(tracker.devicePorts.device!);
    d.send(gt06Login(imei, 1));
    await d.read(10);
    d.send(gt06Position({ time: new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000), lat: 52.5, lng: 13.405, speed: 20, heading: 0 }, {}, 2));
    await d.read(10);
    // The event arrives while the stream is still open: nothing waits for a buffer to fill or the answer to end.
    expect(await eventually(async () => text, (t) => t.includes('event: position'))).toContain('"lat":52.5,');
    d.close();
    req.destroy();
  });

  test('a client that does not trust the CA refuses the connection', async () => {
    await expect(call('/api/public/v1/devices', { ca: null })).rejects.toMatchObject({ code: expect.stringMatching(/UNABLE_TO_GET_ISSUER_CERT_LOCALLY|UNABLE_TO_VERIFY_LEAF_SIGNATURE/) });
  });

  test('plain HTTP is redirected to HTTPS, path and query kept', async () => {
    const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
      http.get({ host: '127.0.0.1', port: nginx.httpPort, path: '/api/public/v1/devices?from=2026-01-01T00:00:00Z', headers: { host: 'localhost' }, agent: false }, resolve).on('error', reject);
    });
    res.resume();
    expect(res.statusCode).toBe(301);
    expect(res.headers.location).toBe('https://localhost/api/public/v1/devices?from=2026-01-01T00:00:00Z');
  });

  test('the gateway counts the client nginx saw, whatever X-Forwarded-For the client sends', async () => {
    // The docs are limited per client address (5 a minute here): forged addresses do not help.
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await call('/api-docs/init.js', { headers: { 'X-Forwarded-For': `198.51.100.${i}` } })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  });

  test("nginx's own refusals answer JSON: too large, probes, plain HTTP on the TLS port", async () => {
    const tooLarge = await call(inboundPath(), { method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.alloc(MAX_BODY_BYTES + 1, 0x20) });
    expect(tooLarge.status).toBe(413);
    expect(JSON.parse(tooLarge.body)).toEqual({ error: 'the request body is larger than 1048576 bytes', code: 'payload_too_large' });
    expect(tooLarge.headers['x-request-id']).toBeUndefined(); // refused before the gateway
    // Exactly the gateway's cap passes nginx (the gateway answers: here, that a token is needed).
    const atCap = await call('/api/public/v1/devices/dev_x/locate', { method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.alloc(MAX_BODY_BYTES, 0x20) });
    expect(atCap.status).toBe(401);
    expect(atCap.headers['x-request-id']).toBeDefined();

    for (const probe of ['/healthz', '/readyz']) {
      const res = await call(probe);
      expect(res.status).toBe(404);
      expect(JSON.parse(res.body)).toEqual({ error: 'no such endpoint', code: 'not_found' });
    }
    const plain = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      http.get({ host: '127.0.0.1', port: nginx.httpsPort, path: inboundPath(), agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      }).on('error', reject);
    });
    expect(plain.status).toBe(400);
    expect(JSON.parse(plain.body)).toMatchObject({ code: 'bad_request' });
  });

  test("a tracker that hangs reaches the client as the gateway's 502, not as nginx's timeout", async () => {
    process.kill(tracker.pid, 'SIGSTOP');
    try {
      const res = await call(inboundPath(), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(res.status).toBe(502);
      expect(JSON.parse(res.body)).toEqual({ error: 'tracking backend unavailable', code: 'backend_unavailable' });
      expect(res.headers['x-request-id']).toBeDefined(); // written by the gateway
    } finally {
      process.kill(tracker.pid, 'SIGCONT');
    }
  });

  test("with the tracker stopped, the gateway's 502 JSON reaches the client", async () => {
    await tracker.stop();
    for (const res of [await call('/api/public/v1/devices', { headers: authorized }), await call(inboundPath(), { method: 'POST', body: '{}' })]) {
      expect(res.status).toBe(502);
      expect(JSON.parse(res.body)).toEqual({ error: 'tracking backend unavailable', code: 'backend_unavailable' });
      expect(res.headers['x-request-id']).toBeDefined();
    }
  });

  test("with the gateway stopped too, nginx's own 502 is the same JSON", async () => {
    await gateway.stop();
    const res = await call(inboundPath(), { method: 'POST', body: '{}' });
    expect(res.status).toBe(502);
    expect(JSON.parse(res.body)).toEqual({ error: 'tracking backend unavailable', code: 'backend_unavailable' });
    expect(res.headers['x-request-id']).toBeUndefined();
    expect(res.headers['strict-transport-security']).toBe('max-age=63072000');
  });

  test('no inbound secret, nor any query string, reached the access log or the error log', async () => {
    // nginx writes a line once the connection is done with, a moment after the client has its answer.
    const entries = await eventually(
      async () => nginx.accessLog().trim().split('\n').map((l) => JSON.parse(l) as { path: string; status: number }),
      (all) => all.filter((e) => e.path === INBOUND).length === secrets.length,
    );
    // The log did record the inbound calls, with their outcomes.
    const inbound = entries.filter((e) => e.path === INBOUND);
    expect(inbound).toHaveLength(secrets.length);
    expect(inbound.map((e) => e.status)).toEqual(expect.arrayContaining([400, 413, 502]));
    const written = nginx.accessLog() + nginx.errorLog();
    for (const secret of secrets) expect(written).not.toContain(secret);
    expect(written).not.toContain('secret=');
    expect(entries.every((e) => !e.path.includes('?'))).toBe(true);
  });
});
