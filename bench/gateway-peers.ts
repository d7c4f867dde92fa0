// The gateway benchmark's peers, each run as its own process: `upstream` (a tracker stand-in that
// answers every path with the same 50-device list and confirms any token) and `proxy` (a bare
// Express + http-proxy-middleware proxy over a keep-alive agent, nothing else).
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import { upstreamAgent } from '../gateway/proxy.js';

export const BENCH_ACCOUNT = 'acc_bench';

/** The upstream's list: 50 devices, the size of a small fleet's GET /devices. */
export function fiftyDevices(): string {
  const data = Array.from({ length: 50 }, (_, i) => ({
    id: `dev_bench${String(i).padStart(15, '0')}`,
    name: `Truck ${i}`,
    plate: `AB-${String(i).padStart(3, '0')}-CD`,
    imei: String(356938035643800 + i),
    status: 'online',
    speed: 42.5,
    position: { lat: 48.85 + i / 1000, lng: 2.35 + i / 1000 },
    lastUpdate: '2026-01-01T12:00:00.000Z',
  }));
  return JSON.stringify({ data });
}

function upstream(): RequestListener {
  const body = fiftyDevices();
  return (req, res) => {
    const token = /^\/internal\/tokens\/([^/?]+)/.exec(req.url ?? '');
    const text = token ? JSON.stringify({ id: token[1], active: true, accountId: BENCH_ACCOUNT }) : body;
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };
}

function bareProxy(target: string): RequestListener {
  const app = express();
  app.use(createProxyMiddleware({ target, agent: upstreamAgent() }));
  return app;
}

const [role, port, target] = process.argv.slice(2);
if (role === 'upstream' || role === 'proxy') {
  const server = createServer(role === 'upstream' ? upstream() : bareProxy(target!));
  server.keepAliveTimeout = 65_000;
  server.listen(Number(port ?? 0), '127.0.0.1', () => {
    process.stdout.write(`${JSON.stringify({ msg: `${role} started`, port: (server.address() as AddressInfo).port })}\n`);
  });
  process.on('SIGTERM', () => process.exit(0));
}
