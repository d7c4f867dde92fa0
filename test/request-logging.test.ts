// The request log both services share: one line per request with its id, and `req.log` for a
// handler's own lines, carrying the id of the request it runs for (and no other).
import { Writable } from 'node:stream';
import { describe, expect, test } from '@jest/globals';
import express from 'express';
import request from 'supertest';
import { requestLogging } from '../shared/http.js';
import { createLogger } from '../shared/logger.js';

function capture(): { lines: Record<string, unknown>[]; stream: Writable } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, stream };
}

describe('request logging', () => {
  test("a handler's lines carry its own request's id, the request line too", async () => {
    const { lines, stream } = capture();
    const app = express();
    app.use(requestLogging(createLogger('test', 'info', stream)));
    app.get('/work', (req, res) => {
      req.log.info({ step: 1 }, 'working');
      req.log.info({ step: 2 }, 'working');
      res.json({ id: req.id });
    });
    app.get('/quiet', (_req, res) => res.json({}));

    const first = await request(app).get('/work').set('X-Request-Id', 'first-request').expect(200);
    const second = await request(app).get('/work').set('X-Request-Id', 'second-request').expect(200);
    const quiet = await request(app).get('/quiet').expect(200);
    expect(first.headers['x-request-id']).toBe('first-request');
    expect(second.headers['x-request-id']).toBe('second-request');
    await new Promise((r) => setTimeout(r, 50));

    const working = lines.filter((l) => l.msg === 'working');
    expect(working.map((l) => [l.reqId, l.step])).toEqual([
      ['first-request', 1],
      ['first-request', 2],
      ['second-request', 1],
      ['second-request', 2],
    ]);
    const completed = lines.filter((l) => l.msg === 'request completed');
    expect(completed.map((l) => l.reqId)).toEqual(['first-request', 'second-request', quiet.headers['x-request-id']]);
    expect(completed[2]).toMatchObject({ req: { method: 'GET', url: '/quiet' }, res: { statusCode: 200 } });
  });
});
