// The token-status cache: how often the tracker is asked, how fast a revocation shows, and that
// the cache stays bounded and never trusts a failed answer.
import http, { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { tokenStatus } from '../../gateway/token-status.js';
import { trackerUpstreams } from '../../gateway/upstreams.js';

const SECRET = 's'.repeat(40);
let server: Server;
let url: string;
let asked = 0;
let up = true;
let databaseDown = false;
const revoked = new Set<string>();
const agent = new http.Agent({ keepAlive: true });

beforeAll(async () => {
  server = createServer((req, res) => {
    asked++;
    if (!up || req.headers['x-gateway-secret'] !== SECRET) return void res.writeHead(500).end();
    if (databaseDown) return void res.writeHead(503, { 'retry-after': '2', 'content-type': 'application/json' }).end('{"error":"database unavailable","code":"unavailable"}');
    const id = decodeURIComponent(req.url!.split('/').pop()!);
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ id, active: !revoked.has(id) && id !== 'tok_unknown', accountId: id === 'tok_unknown' ? null : 'acc_1' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  agent.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const status = (cacheMs: number, maxEntries = 100) => tokenStatus({ upstreams: trackerUpstreams([url]), gatewaySecret: SECRET, agent, cacheMs, timeoutMs: 1000, maxEntries });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('token status', () => {
  it('asks the tracker once, then answers from the cache without waiting', async () => {
    const isActive = status(400);
    asked = 0;
    expect(await isActive('tok_a', 'acc_1')).toBe(true);
    expect(isActive('tok_a', 'acc_1')).toBe(true); // fresh: a plain boolean, no promise
    expect(asked).toBe(1);
  });

  it('refreshes in the background past half the cache time, and sees a revocation within it', async () => {
    const isActive = status(1000);
    await isActive('tok_b', 'acc_1');
    await sleep(600);
    asked = 0;
    expect(isActive('tok_b', 'acc_1')).toBe(true); // still served from the cache…
    await sleep(50);
    expect(asked).toBe(1); // …while it was refreshed behind the scenes
    revoked.add('tok_b');
    const started = Date.now();
    while ((await isActive('tok_b', 'acc_1')) && Date.now() - started < 2000) await sleep(10);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('refuses unknown tokens and tokens of another account', async () => {
    const isActive = status(400);
    expect(await isActive('tok_unknown', 'acc_1')).toBe(false);
    expect(await isActive('tok_c', 'acc_other')).toBe(false);
  });

  it('turns a tracker failure into a 502 and asks again next time', async () => {
    const isActive = status(400);
    up = false;
    try {
      await expect(isActive('tok_d', 'acc_1')).rejects.toMatchObject({ status: 502, code: 'backend_unavailable' });
    } finally {
      up = true;
    }
    expect(await isActive('tok_d', 'acc_1')).toBe(true);
  });

  it('says "unavailable, retry" (503) when the tracker is up but its database is not', async () => {
    const isActive = status(400);
    databaseDown = true;
    try {
      await expect(isActive('tok_g', 'acc_1')).rejects.toMatchObject({ status: 503, code: 'unavailable', headers: { 'Retry-After': '2' } });
    } finally {
      databaseDown = false;
    }
    expect(await isActive('tok_g', 'acc_1')).toBe(true);
  });

  it('never answers for a token id under another account from the cache', async () => {
    const isActive = status(1000);
    expect(await isActive('tok_f', 'acc_1')).toBe(true);
    // The same id claimed for another account (a token minted with a reused id) is asked about afresh.
    expect(await isActive('tok_f', 'acc_other')).toBe(false);
    expect(await isActive('tok_f', 'acc_1')).toBe(true);
  });

  it('keeps at most maxEntries answers', async () => {
    const isActive = status(1000, 2);
    for (const id of ['tok_e1', 'tok_e2', 'tok_e3']) await isActive(id, 'acc_1');
    asked = 0;
    await isActive('tok_e3', 'acc_1');
    expect(asked).toBe(0);
    await isActive('tok_e1', 'acc_1'); // the oldest was evicted: asked again
    expect(asked).toBe(1);
  });

  it('refuses a cache time beyond the one-second revocation promise', () => {
    expect(() => status(1500)).toThrow(/cacheMs/);
  });
});
