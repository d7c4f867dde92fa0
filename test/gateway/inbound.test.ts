// The gateway's part in inbound webhooks: the 256 KiB body cap (declared or streamed, refused before
// the tracker sees it), the per-address count of refused calls (in memory and in Redis), the
// client address stated to the tracker, and secrets masked in the request log however spelled.
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { redisReady } from '../../gateway/redis.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { startStandInTracker, type StandInTracker } from '../helpers/stand-in-tracker.js';

const KiB = 1024;
let tracker: StandInTracker;
const open: TestGateway[] = [];

function gateway(env: Record<string, string> = {}): TestGateway {
  const g = startTestGateway(tracker, env);
  open.push(g);
  return g;
}

beforeAll(async () => {
  tracker = await startStandInTracker();
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((g) => g.close()));
});
afterAll(async () => {
  await tracker.close();
});

describe('body cap', () => {
  it('refuses a declared body over 256 KiB with 413 before forwarding; 256 KiB exactly passes', async () => {
    const g = gateway();
    const hook = tracker.addInbound('s');
    const before = tracker.hits;
    const over = await request(g.app).post(`/api/inbound/${hook}?secret=s`).set('Content-Type', 'application/json').send(' '.repeat(256 * KiB + 1));
    expect(over.status).toBe(413);
    expect(over.body.error).toMatch(/larger than 262144 bytes/);
    expect(tracker.hits).toBe(before);
    const exact = await request(g.app).post(`/api/inbound/${hook}?secret=s`).set('Content-Type', 'application/json').send(' '.repeat(256 * KiB));
    expect(exact.status).toBe(200);
    expect(exact.body.bodyBytes).toBe(256 * KiB);
  });

  it('counts a chunked inbound body as it streams and answers 413 past 256 KiB', async () => {
    const g = gateway();
    const hook = tracker.addInbound('s');
    const req = request(g.app).post(`/api/inbound/${hook}?secret=s`).set('Content-Type', 'application/json').set('Transfer-Encoding', 'chunked');
    for (let i = 0; i < 5; i++) req.write(Buffer.alloc(64 * KiB, 0x20));
    const res = await req;
    expect(res.status).toBe(413);
  });
});

describe('refused inbound calls per client address', () => {
  for (const store of ['memory', 'redis'] as const) {
    it(`a flood of guessed ids is throttled; valid calls are never counted (${store})`, async () => {
      const g = gateway({ RATE_LIMIT_INBOUND_REFUSED_PER_MINUTE: '3', TRUST_PROXY_HOPS: '1', ...(store === 'redis' ? { REDIS_URL: 'redis://127.0.0.1:6379' } : {}) });
      if (g.redis && !(await redisReady(g.redis, 5000))) throw new Error('Redis did not answer');
      const hook = tracker.addInbound('right');
      const from = (address: string) => ({ 'X-Forwarded-For': address });
      // Valid calls from one address, well past the refused-call limit: all served.
      for (let i = 0; i < 8; i++) expect((await request(g.app).post(`/api/inbound/${hook}?secret=right`).set(from('198.51.100.1')).send({ i })).status).toBe(200);
      for (let i = 0; i < 3; i++) expect((await request(g.app).post(`/api/inbound/inb_guess${i}?secret=x`).set(from('198.51.100.1')).send({})).status).toBe(401);
      const before = tracker.hits;
      const blocked = await request(g.app).post('/api/inbound/inb_guess9?secret=x').set(from('198.51.100.1')).send({});
      expect(blocked.status).toBe(429);
      expect(Number(blocked.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(blocked.headers['ratelimit-policy']).toMatch(/^"inboundRefused"; q=3; w=60$/);
      // For the rest of the window the address is turned away, even with a right secret...
      expect((await request(g.app).post(`/api/inbound/${hook}?secret=right`).set(from('198.51.100.1')).send({})).status).toBe(429);
      expect(tracker.hits).toBe(before);
      // ...while another address is served.
      expect((await request(g.app).post(`/api/inbound/${hook}?secret=right`).set(from('198.51.100.2')).send({})).status).toBe(200);
    });
  }

  it('a blocked address does not use up the webhook’s own count', async () => {
    const g = gateway({ RATE_LIMIT_INBOUND_REFUSED_PER_MINUTE: '1', RATE_LIMIT_INBOUND_PER_MINUTE: '2', TRUST_PROXY_HOPS: '1' });
    const hook = tracker.addInbound('right');
    const attacker = { 'X-Forwarded-For': '203.0.113.66' };
    expect((await request(g.app).post(`/api/inbound/${hook}?secret=wrong`).set(attacker).send({})).status).toBe(401);
    for (let i = 0; i < 5; i++) expect((await request(g.app).post(`/api/inbound/${hook}?secret=wrong`).set(attacker).send({})).status).toBe(429);
    const erp = { 'X-Forwarded-For': '198.51.100.7' };
    const ok = await request(g.app).post(`/api/inbound/${hook}?secret=right`).set(erp).send({});
    expect(ok.status).toBe(200);
    expect(ok.headers['ratelimit-policy']).toBe('"inbound"; q=2; w=60');
    expect(ok.headers['x-ratelimit-remaining']).toBe('1'); // the refused call counted against its address only
  });
});

describe('what the tracker is told', () => {
  it('states the client address, replacing any the client sent', async () => {
    const g = gateway({ TRUST_PROXY_HOPS: '1' });
    const hook = tracker.addInbound('s');
    await request(g.app).post(`/api/inbound/${hook}?secret=s`).set('X-Forwarded-For', '192.0.2.44').set('X-Client-Address', '10.0.0.1').send({});
    expect(tracker.lastHeaders['x-client-address']).toBe('192.0.2.44');
  });
});

describe('request log', () => {
  it('masks the secret however the query spells it', async () => {
    const g = gateway();
    const hook = tracker.addInbound('plain-secret-value-1');
    const spellings = ['secret=plain-secret-value-1', 'sec%72et=encoded-secret-value-2', 'Secret=upper-secret-value-3', 'secret=a&secret=repeated-secret-value-4', 'x=1&secret=later-secret-value-5#frag'];
    for (const q of spellings) await request(g.app).post(`/api/inbound/${hook}?${q}`).send({});
    await new Promise((r) => setTimeout(r, 50));
    const text = g.logs.join('\n');
    expect(text).toContain(hook);
    for (const value of ['plain-secret-value-1', 'encoded-secret-value-2', 'upper-secret-value-3', 'repeated-secret-value-4', 'later-secret-value-5']) expect(text).not.toContain(value);
    expect(text.match(/\[redacted\]/g)!.length).toBeGreaterThanOrEqual(spellings.length);
  });
});
