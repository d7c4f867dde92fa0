// The phones' HTTP/1.1 reader over real TCP: what a phone's HTTP client sends is read as Node's
// HTTP server read it (a body by length or chunked, at any split, pipelined requests answered in
// order, HTTP/1.0, Expect: 100-continue), and what is malformed or too large is answered with its
// status and the connection closed, the handler never reached. A fuzz run throws nothing.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { serveHttp, type HttpConnection, type HttpRequest } from '../../tracker/ingest/http-wire.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let server: Server;
let port: number;
const handled: HttpRequest[] = [];
const errors: unknown[] = [];
const open = new Set<HttpConnection>();
let handlerDelayMs = 0;

beforeAll(async () => {
  server = createServer((socket) => {
    const c = serveHttp(
      socket,
      async (req) => {
        handled.push(req);
        if (req.target === '/fail') throw new Error('handler failed');
        const waitMs = Number(/[?&]wait=(\d+)/.exec(req.target)?.[1] ?? handlerDelayMs);
        if (waitMs) await sleep(waitMs);
        return { status: 200, text: JSON.stringify({ method: req.method, target: req.target, type: req.headers['content-type'] ?? null, body: req.body }) };
      },
      { keepAliveMs: 2000, requestTimeoutMs: 500, onFirst: () => undefined, onError: (err) => errors.push(err) },
    );
    open.add(c);
    socket.once('close', () => open.delete(c));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Reads answers off a connection by their length; `closed` resolves with what came before the close. */
function client(): { socket: Socket; send(bytes: string | Buffer): void; next(): Promise<Answer>; closed: Promise<string> } {
  const socket = connect(port, '127.0.0.1');
  let buf = '';
  let all = '';
  const waiting: (() => void)[] = [];
  socket.setEncoding('utf8');
  socket.on('data', (s: string) => {
    buf += s;
    all += s;
    for (const w of waiting.splice(0)) w();
  });
  socket.on('error', () => undefined);
  const closed = new Promise<string>((r) => socket.once('close', () => r(all)));
  socket.once('close', () => {
    for (const w of waiting.splice(0)) w();
  });
  async function next(): Promise<Answer> {
    for (;;) {
      const end = buf.indexOf('\r\n\r\n');
      if (end >= 0) {
        const [statusLine, ...fields] = buf.slice(0, end).split('\r\n');
        const headers = Object.fromEntries(fields.map((f) => [f.slice(0, f.indexOf(':')).toLowerCase(), f.slice(f.indexOf(':') + 1).trim()]));
        const length = Number(headers['content-length'] ?? 0);
        if (Buffer.byteLength(buf.slice(end + 4)) >= length) {
          const body = Buffer.from(buf.slice(end + 4)).subarray(0, length).toString('utf8');
          buf = Buffer.from(buf.slice(end + 4)).subarray(length).toString('utf8');
          return { status: Number(statusLine!.split(' ')[1]), headers, body };
        }
      }
      if (socket.destroyed) throw new Error(`closed with ${JSON.stringify(buf)}`);
      await new Promise<void>((r) => waiting.push(r));
    }
  }
  return { socket, send: (bytes) => socket.write(bytes), next, closed };
}

const get = (target: string, extra = '') => `GET ${target} HTTP/1.1\r\nHost: t\r\n${extra}\r\n`;

describe('requests read', () => {
  test('keep-alive: several requests on one connection, each answered in turn, a 200 with its length and no connection field', async () => {
    const c = client();
    for (const i of [1, 2, 3]) {
      c.send(get(`/?id=1&n=${i}`));
      const a = await c.next();
      expect(a.status).toBe(200);
      expect(JSON.parse(a.body).target).toBe(`/?id=1&n=${i}`);
      expect(a.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(a.headers.connection).toBeUndefined();
      expect(a.headers.date).toMatch(/GMT$/);
    }
    c.socket.destroy();
  });

  test('pipelined requests are handled together and answered in the order they came, the later ones done first', async () => {
    const c = client();
    const started = Date.now();
    c.send(get('/?n=1&wait=400') + get('/?n=2&wait=300') + `POST /?n=3&wait=200 HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc` + get('/?n=4&wait=100'));
    const targets = [];
    for (let i = 0; i < 4; i++) targets.push(JSON.parse((await c.next()).body).target);
    expect(targets).toEqual(['/?n=1&wait=400', '/?n=2&wait=300', '/?n=3&wait=200', '/?n=4&wait=100']);
    // One after another they would take a second.
    expect(Date.now() - started).toBeLessThan(800);
    c.socket.destroy();
  });

  test('a malformed request after whole ones is refused after their answers', async () => {
    const before = handled.length;
    const c = client();
    c.send(get('/?n=1&wait=100') + get('/?n=2') + 'BROKEN\r\n\r\n' + get('/?n=3'));
    expect((await c.next()).status).toBe(200);
    expect((await c.next()).status).toBe(200);
    const refused = await c.next();
    expect(refused.status).toBe(400);
    expect(refused.headers.connection).toBe('close');
    await c.closed;
    expect(handled.length - before).toBe(2);
  });

  test('a body by Content-Length and a chunked one, each split at every byte, reach the handler whole', async () => {
    const byLength = 'POST /p HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 27\r\n\r\nid=7&lat=52.5&lon=13.4&x=ü';
    const chunked = 'POST /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nid=7&\r\n10\r\nlat=52.5&lon=13.\r\n1\r\n4\r\n0\r\nTrailer: x\r\n\r\n';
    for (const request of [byLength, chunked]) {
      const bytes = Buffer.from(request, 'utf8');
      const c = client();
      for (const b of bytes) {
        c.send(Buffer.from([b]));
        await new Promise((r) => setImmediate(r));
      }
      const a = await c.next();
      expect(a.status).toBe(200);
      expect(JSON.parse(a.body).body).toBe(request === byLength ? 'id=7&lat=52.5&lon=13.4&x=ü' : 'id=7&lat=52.5&lon=13.4');
      c.socket.destroy();
    }
  });

  test('Expect: 100-continue gets its interim answer before the body is sent', async () => {
    const c = client();
    c.send('POST /e HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n');
    const interim = await c.next();
    expect(interim.status).toBe(100);
    c.send('id=9');
    const a = await c.next();
    expect(a.status).toBe(200);
    expect(JSON.parse(a.body).body).toBe('id=9');
    c.socket.destroy();
  });

  test('HTTP/1.0 is answered and closed, unless it asks to keep the connection; Connection: close is honoured', async () => {
    const plain = client();
    plain.send('GET /a HTTP/1.0\r\n\r\n');
    expect((await plain.next()).headers.connection).toBe('close');
    await plain.closed;

    const kept = client();
    kept.send('GET /b HTTP/1.0\r\nConnection: keep-alive\r\n\r\n');
    expect((await kept.next()).headers.connection).toBe('keep-alive');
    kept.send('GET /c HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n');
    expect(JSON.parse((await kept.next()).body).target).toBe('/c');
    kept.socket.destroy();

    const closing = client();
    closing.send(get('/d', 'Connection: close\r\n'));
    expect((await closing.next()).headers.connection).toBe('close');
    await closing.closed;
  });

  test('a failing handler is answered 503 and logged, and the connection serves on', async () => {
    const c = client();
    c.send(get('/fail'));
    expect((await c.next()).status).toBe(503);
    expect(errors.length).toBeGreaterThan(0);
    c.send(get('/after'));
    expect((await c.next()).status).toBe(200);
    c.socket.destroy();
  });
});

describe('requests refused, the connection closed and the handler not reached', () => {
  const cases: [string, string | Buffer, number][] = [
    ['a malformed request line', 'GET /\r\n\r\n', 400],
    ['an unknown version', 'GET / HTTP/2.0\r\n\r\n', 400],
    ['a space before a field colon', 'GET / HTTP/1.1\r\nHost : x\r\n\r\n', 400],
    ['a folded field', 'GET / HTTP/1.1\r\nX-A: 1\r\n  2\r\n\r\n', 400],
    ['a control character in a field', 'GET / HTTP/1.1\r\nX-A: a\x01b\r\n\r\n', 400],
    ['both Content-Length and Transfer-Encoding', 'POST / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n', 400],
    ['a malformed Content-Length', 'POST / HTTP/1.1\r\nContent-Length: 3, 3\r\n\r\nabc', 400],
    ['a transfer coding other than chunked', 'POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n', 501],
    ['a malformed chunk size', 'POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', 400],
    ['chunk data without its CRLF', 'POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n', 400],
    ['an expectation other than 100-continue', 'GET / HTTP/1.1\r\nExpect: magic\r\n\r\n', 417],
    ['a body over 64 KiB by its length', `POST / HTTP/1.1\r\nContent-Length: ${64 * 1024 + 1}\r\n\r\n`, 413],
    ['a chunked body over 64 KiB', `POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n10001\r\n`, 413],
    ['a head over 16 KiB', `GET / HTTP/1.1\r\nX-Long: ${'a'.repeat(17 * 1024)}\r\n\r\n`, 431],
    ['a head over 16 KiB that never ends', `GET / HTTP/1.1\r\nX-Long: ${'a'.repeat(17 * 1024)}`, 431],
  ];
  test.each(cases)('%s', async (_name, bytes, status) => {
    const before = handled.length;
    const c = client();
    c.send(bytes);
    const a = await c.next();
    expect(a.status).toBe(status);
    expect(a.headers.connection).toBe('close');
    await c.closed;
    expect(handled.length).toBe(before);
  });

  test('a request not whole in time after its first byte is answered 408', async () => {
    const c = client();
    c.send('GET / HTTP/1.1\r\nHost:');
    const a = await c.next();
    expect(a.status).toBe(408);
    await c.closed;
  });

  test('an idle kept-alive connection is closed after the keep-alive time', async () => {
    const c = client();
    c.send(get('/idle'));
    await c.next();
    const started = Date.now();
    await c.closed;
    expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
  });
});

test('a graceful stop answers the request under way with Connection: close, and ends an idle connection at once', async () => {
  handlerDelayMs = 100;
  const busy = client();
  const idle = client();
  idle.send(get('/idle'));
  await idle.next();
  busy.send(get('/slow'));
  await sleep(20);
  for (const c of open) c.closeWhenIdle();
  const a = await busy.next();
  handlerDelayMs = 0;
  expect(a.status).toBe(200);
  expect(a.headers.connection).toBe('close');
  await Promise.all([busy.closed, idle.closed]);
});

test('fuzz: 5,000 mutated requests, split anywhere, throw nothing and get an answer or a close', async () => {
  const seeds = [
    get('/?id=359633100000505&lat=52.5&lon=13.4', 'User-Agent: phone\r\n'),
    'POST /?id=1 HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 13\r\n\r\n{"id":"1234"}',
    'POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nid=1\r\n0\r\n\r\n',
    'GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n',
  ];
  let state = 42;
  const rnd = (n: number) => ((state = (state * 1103515245 + 12345) >>> 0) % n);
  const before = errors.length;
  for (let i = 0; i < 5000; i += 50) {
    await Promise.all(
      Array.from({ length: 50 }, async (_, k) => {
        const bytes = Buffer.from(seeds[(i + k) % seeds.length]!, 'latin1');
        for (let m = rnd(4); m >= 0; m--) {
          const at = rnd(bytes.length);
          const op = rnd(3);
          if (op === 0) bytes[at] = rnd(256);
          else if (op === 1) bytes[at] = [0x0d, 0x0a, 0x3a, 0x20, 0x30][rnd(5)]!;
          else bytes.copyWithin(at, rnd(bytes.length));
        }
        const c = client();
        const cut = rnd(bytes.length);
        c.send(bytes.subarray(0, cut));
        await new Promise((r) => setImmediate(r));
        c.send(bytes.subarray(cut));
        // Most clients end their side after sending, as a phone that gives up does; the rest wait.
        if (k % 10) c.socket.end();
        const outcome = await Promise.race([c.next().then((a) => a.status, () => 0), c.closed.then(() => 0), sleep(700).then(() => -1)]);
        expect(outcome === 0 || outcome === -1 || (outcome >= 100 && outcome < 600)).toBe(true);
        c.socket.destroy();
      }),
    );
  }
  expect(errors.length).toBe(before);
  // Still serving.
  const c = client();
  c.send(get('/alive'));
  expect((await c.next()).status).toBe(200);
  c.socket.destroy();
}, 120_000);
