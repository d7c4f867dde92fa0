// The images' HEALTHCHECK command (scripts/healthcheck.ts): exit 0 when the service's /healthz, on
// the port its settings name, answers 200; 1 when it answers otherwise or not at all.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../helpers/ports.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
let server: Server;
let port: number;
let status = 200;

function healthcheck(args: string[], env: Record<string, string>): Promise<number | null> {
  const { NODE_OPTIONS: _jest, ...inherited } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/healthcheck.ts', ...args], { cwd: ROOT, env: { ...inherited, ...env }, stdio: 'ignore' });
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

beforeAll(async () => {
  server = createServer((req, res) => void res.writeHead(req.url === '/healthz' ? status : 404).end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise((r) => server.close(r)));

describe('healthcheck', () => {
  test("asks the gateway's or the tracker's /healthz on its configured port", async () => {
    expect(await healthcheck(['gateway'], { GATEWAY_HOST: '0.0.0.0', GATEWAY_PORT: String(port) })).toBe(0);
    expect(await healthcheck(['tracker'], { TRACKER_HOST: '127.0.0.1', TRACKER_HTTP_PORT: String(port) })).toBe(0);
  });

  test('fails on an error answer or on no answer, and on a wrong argument', async () => {
    status = 503;
    expect(await healthcheck(['gateway'], { GATEWAY_PORT: String(port) })).toBe(1);
    expect(await healthcheck(['tracker'], { TRACKER_HTTP_PORT: String(await freePort()) })).toBe(1);
    expect(await healthcheck(['nginx'], {})).toBe(2);
  });
});
