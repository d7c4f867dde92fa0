// Inbound webhooks as the tracker serves them behind the gateway: every action's happy path, every
// refusal (each changing nothing), Idempotency-Key retries (one after another and at once), two
// accounts kept apart, and the per-webhook call log. Responses are checked against the OpenAPI document.
import { describe, expect, test, beforeAll, afterAll } from '@jest/globals';
import { gzipSync } from 'node:zlib';
import request from 'supertest';
import { INTERNAL_HEADERS } from '../../shared/internal.js';
import { runVerb } from '../../tracker/admin/verbs.js';
import { pruneCalls, type InboundCall } from '../../tracker/inbound/calls.js';
import { forgetExpired } from '../../tracker/inbound/idempotency.js';
import { ENGINES } from '../helpers/databases.js';
import { eventually } from '../helpers/device-client.js';
import { assertMatchesDocument } from '../helpers/openapi.js';
import { startTrackerFixture, type TrackerFixture } from '../helpers/tracker-app.js';

const T = '/api/inbound/{webhookId}';
describe.each(ENGINES)('inbound webhooks on %s', (engine) => {
  let f: TrackerFixture;
  let acme: string;
  let other: string;
  let van: string;
  let truck: string;
  let foreign: string;
  type Hook = { id: string; secret: string; url: string };
  const hooks: Record<string, Hook> = {};
  let otherExpenses: Hook;

  async function addHook(account: string, action: string, name?: string): Promise<Hook> {
    return (await runVerb(f.tracker.ctx, 'inbound add', { account, action, name })) as Hook;
  }

  /** A call as the gateway forwards it: link secret and client address, no caller. */
  function call(hook: { id: string; secret: string }, body?: unknown, headers: Record<string, string> = {}) {
    const req = request(`http://127.0.0.1:${f.tracker.httpPort}`)
      .post(`/api/inbound/${hook.id}?secret=${encodeURIComponent(hook.secret)}`)
      .set(INTERNAL_HEADERS.secret, f.tracker.ctx.gatewaySecret)
      .set(INTERNAL_HEADERS.clientAddress, '203.0.113.9');
    for (const [k, v] of Object.entries(headers)) req.set(k, v);
    if (body === undefined) return req;
    return req.set('content-type', headers['content-type'] ?? 'application/json').send(typeof body === 'string' ? body : JSON.stringify(body));
  }

  async function accepted(hook: Hook, body: unknown, headers: Record<string, string> = {}, status = 201) {
    const res = await call(hook, body, headers);
    expect(res.status).toBe(status);
    assertMatchesDocument('post', T, status, res.body);
    return res;
  }

  async function refused(hook: { id: string; secret: string }, body: unknown, status: number, message: RegExp, headers: Record<string, string> = {}) {
    const before = await counts();
    const res = await call(hook, body, headers);
    expect(res.status).toBe(status);
    assertMatchesDocument('post', T, status, res.body);
    expect(res.body.error).toMatch(message);
    expect(await counts()).toEqual(before);
    return res;
  }

  async function counts() {
    const rows = await f.tracker.ctx.db.query<{ t: string; n: number }>(
      `SELECT 'incidents' AS t, count(*)::int AS n FROM incidents UNION ALL SELECT 'expenses', count(*)::int FROM expenses
       UNION ALL SELECT 'work_orders', count(*)::int FROM work_orders UNION ALL SELECT 'unit_notes', count(*)::int FROM unit_notes
       UNION ALL SELECT 'log_only', count(*)::int FROM inbound_calls WHERE status = 202 AND NOT replayed`,
    );
    return Object.fromEntries(rows.map((r) => [r.t, r.n]));
  }

  const calls = async (hook: Hook, limit = 50) => ((await runVerb(f.tracker.ctx, 'inbound calls', { webhook: hook.id, limit: String(limit) })) as { calls: InboundCall[] }).calls;

  async function list(path: string, account = acme, status = 200) {
    const res = await f.as(account, 'read').get(path);
    expect(res.status).toBe(status);
    assertMatchesDocument('get', path.split('?')[0]!, status, res.body);
    return res.body;
  }

  beforeAll(async () => {
    f = await startTrackerFixture(engine, { PUBLIC_BASE_URL: 'https://fleet.example.com/' });
    acme = await f.account('Acme');
    other = await f.account('Other');
    van = await f.device(acme, '359633100000301', 'Van');
    truck = await f.device(acme, '359633100000302', 'Truck');
    foreign = await f.device(other, '359633100000303', 'Foreign');
    for (const action of ['create_incident', 'create_expense', 'create_work_order', 'create_unit_note', 'log_only']) hooks[action] = await addHook(acme, action);
    otherExpenses = await addHook(other, 'create_expense', 'Their ERP');
  });
  afterAll(() => f.close());

  describe('operator commands', () => {
    test('add shows the URL under PUBLIC_BASE_URL and a 256-bit secret once; list never shows it', async () => {
      const h = hooks.create_expense!;
      expect(h).toMatchObject({ id: expect.stringMatching(/^inb_/), url: `https://fleet.example.com/api/inbound/${h.id}`, action: 'create_expense', name: 'create_expense' });
      expect(Buffer.from(h.secret, 'base64url')).toHaveLength(32);
      const listed = (await runVerb(f.tracker.ctx, 'inbound list', { account: acme })) as { webhooks: { id: string }[] };
      expect(listed.webhooks.map((w) => w.id).sort()).toEqual(Object.values(hooks).map((w) => w.id).sort());
      expect(JSON.stringify(listed)).not.toContain(h.secret);
      const stored = await f.tracker.ctx.db.query<{ secret_hash: Buffer }>('SELECT secret_hash FROM inbound_webhooks WHERE id = $1', [h.id]);
      expect(Buffer.from(stored[0]!.secret_hash).toString('base64url')).not.toBe(h.secret);
      expect(JSON.stringify(await f.tracker.ctx.db.query('SELECT * FROM inbound_webhooks'))).not.toContain(h.secret);
    });

    test.each([
      [{ account: 'ACME', action: 'create_invoice' }, 'bad_request', /unknown action "create_invoice": allowed actions are create_incident, create_expense/],
      [{ account: 'ACME' }, 'bad_request', /action is required/],
      [{ account: 'acc_nope', action: 'log_only' }, 'not_found', /no account acc_nope/],
      [{ account: 'ACME', action: 'log_only', name: '' }, 'bad_request', /webhook name \(--name\) must not be empty/],
    ])('add refuses %j and creates nothing', async (args, code, message) => {
      const before = await f.tracker.ctx.db.query('SELECT id FROM inbound_webhooks');
      const input = { ...args, account: args.account === 'ACME' ? acme : args.account };
      await expect(runVerb(f.tracker.ctx, 'inbound add', input)).rejects.toMatchObject({ code, message: expect.stringMatching(message) });
      expect(await f.tracker.ctx.db.query('SELECT id FROM inbound_webhooks')).toEqual(before);
    });

    test('remove: the URL stops working at once; the records it made stay', async () => {
      const h = await addHook(acme, 'create_incident', 'short-lived');
      const made = await accepted(h, { title: 'Flat tyre' });
      expect(await runVerb(f.tracker.ctx, 'inbound remove', { webhook: h.id })).toEqual({ id: h.id, removed: true });
      await refused(h, { title: 'again' }, 401, /^unknown webhook or wrong secret$/);
      const records = await list('/api/public/v1/incidents');
      expect(records.data.map((r: { id: string }) => r.id)).toContain(made.body.id);
      await expect(runVerb(f.tracker.ctx, 'inbound remove', { webhook: h.id })).rejects.toMatchObject({ code: 'not_found' });
      await expect(runVerb(f.tracker.ctx, 'inbound calls', { webhook: h.id })).rejects.toMatchObject({ code: 'not_found' });
    });
  });

  describe('each action', () => {
    test('the spec’s example body creates an expense; unknown fields are kept', async () => {
      const res = await accepted(hooks.create_expense!, { deviceId: van, amount: 84.37, category: 'fuel', liters: 52.1, invoice: 'INV-1', lines: [{ sku: 'D1' }] });
      expect(res.body).toEqual({ ok: true, action: 'create_expense', id: expect.stringMatching(/^exp_/) });
      const { data } = await list(`/api/public/v1/expenses?deviceId=${van}`);
      const e = data.find((x: { id: string }) => x.id === res.body.id);
      expect(e).toEqual({
        id: res.body.id, deviceId: van, amount: 84.37, currency: null, category: 'fuel', liters: 52.1,
        time: expect.any(String), receivedAt: e.time, webhookId: hooks.create_expense!.id, extra: { invoice: 'INV-1', lines: [{ sku: 'D1' }] },
      });
    });

    test('an expense with currency and time, without a unit', async () => {
      const res = await accepted(hooks.create_expense!, { amount: -12.5, currency: 'eur', time: '2026-11-20T10:15:00+01:00', category: null });
      const { data } = await list('/api/public/v1/expenses?from=2026-11-20T09:15:00Z&to=2026-11-20T09:15:00Z');
      expect(data).toEqual([expect.objectContaining({ id: res.body.id, deviceId: null, amount: -12.5, currency: 'EUR', category: null, liters: null, time: '2026-11-20T09:15:00.000Z' })]);
    });

    test('an incident needs a title or a message', async () => {
      const a = await accepted(hooks.create_incident!, { title: 'Accident on A9', severity: 'critical', deviceId: truck, reportedBy: 'dispatch' });
      const b = await accepted(hooks.create_incident!, { message: 'Driver reports smoke' });
      const { data } = await list('/api/public/v1/incidents');
      expect(data.find((x: { id: string }) => x.id === a.body.id)).toMatchObject({ title: 'Accident on A9', message: null, severity: 'critical', deviceId: truck, extra: { reportedBy: 'dispatch' } });
      expect(data.find((x: { id: string }) => x.id === b.body.id)).toMatchObject({ title: null, message: 'Driver reports smoke', severity: null, deviceId: null });
    });

    test('a work order needs a title', async () => {
      const res = await accepted(hooks.create_work_order!, { title: 'Brake service', description: 'Front pads', dueAt: '2026-12-01T08:00:00Z', deviceId: van });
      expect(res.body.id).toMatch(/^wo_/);
      const { data } = await list(`/api/public/v1/work-orders?deviceId=${van}`);
      expect(data).toEqual([expect.objectContaining({ id: res.body.id, title: 'Brake service', description: 'Front pads', dueAt: '2026-12-01T08:00:00.000Z', deviceId: van, extra: {} })]);
    });

    test('a unit note needs a unit and text', async () => {
      const res = await accepted(hooks.create_unit_note!, { deviceId: van, text: 'Spare key in the office', author: 'M. Ruiz' });
      expect(res.body.id).toMatch(/^note_/);
      const { data } = await list('/api/public/v1/unit-notes');
      expect(data).toEqual([expect.objectContaining({ id: res.body.id, deviceId: van, text: 'Spare key in the office', extra: { author: 'M. Ruiz' } })]);
    });

    test('log_only answers 202 and stores the call with its body', async () => {
      const body = { event: 'order.shipped', order: { id: 991, lines: 3 } };
      const res = await accepted(hooks.log_only!, body, {}, 202);
      expect(res.body).toEqual({ ok: true, action: 'log_only', id: expect.stringMatching(/^call_/) });
      const [latest] = await calls(hooks.log_only!, 1);
      expect(latest).toMatchObject({ id: res.body.id, status: 202, body, recordId: null, clientAddress: '203.0.113.9' });
    });
  });

  test('inbound calls raise no events and queue no outbound webhooks', async () => {
    const outbound = async () =>
      (await f.tracker.ctx.db.query<{ n: number }>('SELECT (SELECT count(*) FROM events)::int + (SELECT count(*) FROM webhook_deliveries)::int AS n'))[0]!.n;
    const before = await outbound();
    await accepted(hooks.create_incident!, { deviceId: van, title: 'SOS button pressed', severity: 'critical' });
    await accepted(hooks.create_unit_note!, { deviceId: van, text: 'Speeding reported by the customer' });
    await accepted(hooks.log_only!, { type: 'sos', deviceId: van }, {}, 202);
    expect(await outbound()).toBe(before);
  });

  describe('refusals change nothing', () => {
    test('an unknown id, a wrong, missing or repeated secret: the same 401', async () => {
      const h = hooks.create_expense!;
      const bodies = [];
      for (const target of [{ id: 'inb_unknownunknownunknow', secret: h.secret }, { id: h.id, secret: 'wrong' }, { id: h.id, secret: '' }, { id: h.id, secret: `${h.secret}&secret=${h.secret}` }]) {
        bodies.push((await refused(target, { amount: 1 }, 401, /^unknown webhook or wrong secret$/)).body);
      }
      expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1);
    });

    test('a wrong secret for a known webhook is in its call log, without any secret', async () => {
      const h = hooks.create_work_order!;
      await call({ id: h.id, secret: 'not-the-secret-x1' }, { title: 'x' });
      // Written just after the answer went out.
      let entry: InboundCall | undefined;
      for (let i = 0; i < 50 && !entry; i++, await new Promise((r) => setTimeout(r, 20))) entry = (await calls(h, 5)).find((c) => c.status === 401);
      expect(entry).toMatchObject({ status: 401, error: 'unknown webhook or wrong secret', body: null, clientAddress: '203.0.113.9' });
      expect(JSON.stringify(await calls(h, 1000))).not.toContain('not-the-secret-x1');
    });

    test.each([
      [undefined, /Content-Type must be application\/json/],
      ['text/plain', /Content-Type must be application\/json/],
      ['application/json; charset=utf-16', /Content-Type must be application\/json/],
      ['application/x-www-form-urlencoded', /Content-Type must be application\/json/],
    ])('415 for Content-Type %s', async (type, message) => {
      const h = hooks.create_expense!;
      const req = () => {
        const r = request(`http://127.0.0.1:${f.tracker.httpPort}`).post(`/api/inbound/${h.id}?secret=${h.secret}`).set(INTERNAL_HEADERS.secret, f.tracker.ctx.gatewaySecret);
        return type ? r.set('content-type', type).send('{"amount":1}') : r.send(Buffer.from('{"amount":1}'));
      };
      const before = await counts();
      const res = await req();
      expect(res.status).toBe(415);
      assertMatchesDocument('post', T, 415, res.body);
      expect(res.body.error).toMatch(message);
      expect(await counts()).toEqual(before);
    });

    test('charset=utf-8 and a gzip-compressed body are accepted', async () => {
      await accepted(hooks.create_expense!, { amount: 3 }, { 'content-type': 'application/json; charset=UTF-8' });
      const h = hooks.create_expense!;
      const res = await fetch(`http://127.0.0.1:${f.tracker.httpPort}/api/inbound/${h.id}?secret=${h.secret}`, {
        method: 'POST',
        headers: { [INTERNAL_HEADERS.secret]: f.tracker.ctx.gatewaySecret, 'content-type': 'application/json', 'content-encoding': 'gzip' },
        body: gzipSync(JSON.stringify({ amount: 4, category: 'zipped' })),
      });
      expect(res.status).toBe(201);
    });

    test.each([
      ['{"amount": 1', /the body is not valid JSON/],
      ['', /the body is not valid JSON/],
      ['[{"amount": 1}]', /the body must be a JSON object/],
      ['"amount"', /the body must be a JSON object/],
      ['null', /the body must be a JSON object/],
      ['42', /the body must be a JSON object/],
      ['{"amount": 1, "note": "a\\u0000b"}', /U\+0000/],
      ['{"amount": 1, "note": "\\ud800"}', /unpaired UTF-16 surrogate/],
      [`{"amount": 1, "x": ${'['.repeat(40)}${']'.repeat(40)}}`, /nested more than 32 levels/],
    ])('400 for the body %s', async (body, message) => {
      await refused(hooks.create_expense!, body, 400, message);
    });

    test.each([
      ['create_expense', {}, /missing field "amount"/],
      ['create_expense', { amount: null }, /missing field "amount"/],
      ['create_expense', { amount: '12.50' }, /invalid field "amount": must be a number/],
      ['create_expense', { amount: 1, currency: 'EURO' }, /invalid field "currency": must be a three-letter ISO 4217 code/],
      ['create_expense', { amount: 1, liters: -3 }, /invalid field "liters": must be at least 0/],
      ['create_expense', { amount: 1, time: 'yesterday' }, /invalid field "time": must be an ISO 8601 timestamp with a time zone/],
      ['create_expense', { amount: 1, time: '2026-11-20T10:00:00' }, /invalid field "time"/],
      ['create_expense', { amount: 1, category: 'x'.repeat(101) }, /invalid field "category": must be at most 100 characters/],
      ['create_expense', { amount: 1, deviceId: 'dev_unknownunknownunkn' }, /invalid field "deviceId": no such unit in this account/],
      ['create_expense', { amount: 1, deviceId: 42 }, /invalid field "deviceId": must be a string/],
      ['create_incident', { severity: 'info' }, /missing field "title" or "message"/],
      ['create_incident', { title: '  ' }, /invalid field "title": must not be empty/],
      ['create_incident', { title: 'x', severity: 'urgent' }, /invalid field "severity": must be one of critical, warning, info/],
      ['create_work_order', { description: 'no title' }, /missing field "title"/],
      ['create_work_order', { title: 'x', dueAt: 'soon' }, /invalid field "dueAt"/],
      ['create_unit_note', { text: 'no unit' }, /missing field "deviceId"/],
      ['create_unit_note', { deviceId: 'VAN' }, /missing field "text"/],
    ])('%s: 400 for %j names the field', async (action, body, message) => {
      const b = JSON.parse(JSON.stringify(body).replaceAll('"VAN"', JSON.stringify(van))) as unknown;
      await refused(hooks[action]!, b, 400, message);
    });

    test('a unit of another account is the same 400 as an unknown one', async () => {
      const res = await refused(hooks.create_unit_note!, { deviceId: foreign, text: 'not mine' }, 400, /^invalid field "deviceId": no such unit in this account$/);
      expect(JSON.stringify(res.body)).not.toContain(other);
    });

    test('413 over 256 KiB, declared or streamed', async () => {
      const big = JSON.stringify({ amount: 1, pad: 'x'.repeat(256 * 1024) });
      await refused(hooks.create_expense!, big, 413, /larger than 262144 bytes/);
      const before = await counts();
      const chunked = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(`http://127.0.0.1:${f.tracker.httpPort}`)
          .post(`/api/inbound/${hooks.create_expense!.id}?secret=${hooks.create_expense!.secret}`)
          .set(INTERNAL_HEADERS.secret, f.tracker.ctx.gatewaySecret)
          .set('content-type', 'application/json')
          .set('transfer-encoding', 'chunked');
        req.write(big.slice(0, 200_000));
        req.write(big.slice(200_000));
        req.end((err, res) => (err ? reject(err) : resolve({ status: res.status, body: res.text })));
      });
      expect(chunked.status).toBe(413);
      expect(await counts()).toEqual(before);
      // Exactly at the limit is fine.
      const exact = JSON.stringify({ amount: 1, pad: '' });
      await accepted(hooks.create_expense!, exact.replace('""', `"${'y'.repeat(256 * 1024 - exact.length)}"`));
    });

    test('refused calls are in the call log with the message the caller got', async () => {
      await call(hooks.create_expense!, { amount: 'lots' });
      const [latest] = await calls(hooks.create_expense!, 1);
      expect(latest).toMatchObject({ status: 400, error: 'invalid field "amount": must be a number', body: { amount: 'lots' }, recordId: null });
    });
  });

  describe('Idempotency-Key', () => {
    test('a retry within 24 hours gets the first answer and creates nothing', async () => {
      const h = hooks.create_expense!;
      const body = { deviceId: van, amount: 10, category: 'tolls' };
      const first = await accepted(h, body, { 'Idempotency-Key': 'erp-42' });
      const before = await counts();
      const again = await call(h, body, { 'Idempotency-Key': 'erp-42' });
      expect(again.status).toBe(201);
      expect(again.body).toEqual(first.body);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      expect(await counts()).toEqual(before);
      const [latest] = await calls(h, 1);
      expect(latest).toMatchObject({ status: 201, replayed: true, recordId: first.body.id, idempotencyKey: 'erp-42' });
      // Keys belong to one webhook: another webhook may use the same key.
      const other = await accepted(hooks.create_incident!, { title: 'x' }, { 'Idempotency-Key': 'erp-42' });
      expect(other.body.id).not.toBe(first.body.id);
    });

    test('log_only replays its 202', async () => {
      const first = await accepted(hooks.log_only!, { n: 1 }, { 'Idempotency-Key': 'log-1' }, 202);
      const again = await accepted(hooks.log_only!, { n: 1 }, { 'Idempotency-Key': 'log-1' }, 202);
      expect(again.body).toEqual(first.body);
    });

    test('the same key with another body is 422 and creates nothing', async () => {
      const h = hooks.create_expense!;
      await accepted(h, { amount: 5 }, { 'Idempotency-Key': 'erp-43' });
      const res = await refused(h, { amount: 6 }, 422, /already used with a different request body/, { 'Idempotency-Key': 'erp-43' });
      expect(res.body.code).toBe('idempotency_key_reused');
    });

    test('a refused call does not use up its key', async () => {
      const h = hooks.create_expense!;
      await refused(h, { amount: 'x' }, 400, /"amount"/, { 'Idempotency-Key': 'erp-44' });
      await accepted(h, { amount: 7 }, { 'Idempotency-Key': 'erp-44' });
    });

    test('concurrent retries with one key create exactly one record, and all get its answer', async () => {
      const h = hooks.create_work_order!;
      const before = await counts();
      const answers = await Promise.all(Array.from({ length: 12 }, () => call(h, { title: 'Tyre change', deviceId: truck }, { 'Idempotency-Key': 'wo-7' })));
      expect(answers.map((a) => a.status)).toEqual(Array(12).fill(201));
      expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
      expect(answers.filter((a) => a.headers['idempotent-replayed'] === 'true')).toHaveLength(11);
      expect(await counts()).toEqual({ ...before, work_orders: before.work_orders! + 1 });
    });

    test('after 24 hours the key is free again', async () => {
      const h = hooks.create_incident!;
      const first = await accepted(h, { title: 'Old' }, { 'Idempotency-Key': 'inc-1' });
      await f.tracker.ctx.db.query("UPDATE inbound_idempotency SET created_at = now() - interval '25 hours' WHERE key = 'inc-1'");
      const second = await accepted(h, { title: 'New' }, { 'Idempotency-Key': 'inc-1' });
      expect(second.body.id).not.toBe(first.body.id);
      expect(second.headers['idempotent-replayed']).toBeUndefined();
    });

    test('a malformed key is a 400 naming the header', async () => {
      await refused(hooks.create_expense!, { amount: 1 }, 400, /invalid header "Idempotency-Key"/, { 'Idempotency-Key': 'k'.repeat(256) });
    });
  });

  describe('two accounts', () => {
    test('each reads only its own records; a webhook creates only in its own account', async () => {
      const theirs = await accepted(otherExpenses, { deviceId: foreign, amount: 99 });
      await refused(otherExpenses, { deviceId: van, amount: 1 }, 400, /"deviceId"/);
      const mine = await list('/api/public/v1/expenses');
      expect(mine.data.map((e: { id: string }) => e.id)).not.toContain(theirs.body.id);
      const their = await list('/api/public/v1/expenses', other);
      expect(their.data.map((e: { id: string }) => e.id)).toEqual([theirs.body.id]);
      // Filtering by another account's unit finds nothing.
      expect((await list(`/api/public/v1/expenses?deviceId=${foreign}`)).data).toEqual([]);
    });
  });

  describe('read API', () => {
    test('pages newest first with an opaque cursor', async () => {
      const h = hooks.create_unit_note!;
      for (let i = 0; i < 5; i++) await accepted(h, { deviceId: truck, text: `note ${i}`, time: `2026-10-0${i + 1}T12:00:00Z` });
      const seen: string[] = [];
      let cursor = '';
      for (let pages = 0; pages < 5; pages++) {
        const page = await list(`/api/public/v1/unit-notes?deviceId=${truck}&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        seen.push(...page.data.map((n: { text: string }) => n.text));
        if (page.nextCursor === null) break;
        cursor = page.nextCursor;
      }
      expect(seen).toEqual(['note 4', 'note 3', 'note 2', 'note 1', 'note 0']);
    });

    test.each([
      ['from=yesterday', /"from": must be an ISO 8601 timestamp/],
      ['from=2026-11-02T00:00:00Z&to=2026-11-01T00:00:00Z', /"from" must not be later than "to"/],
      ['cursor=garbage', /"cursor"/],
      ['limit=0', /"limit"/],
    ])('400 for %s', async (q, message) => {
      expect((await list(`/api/public/v1/incidents?${q}`, acme, 400)).error).toMatch(message);
    });

    test('needs the read scope', async () => {
      const res = await f.as(acme, 'commands').get('/api/public/v1/work-orders');
      expect(res.status).toBe(403);
    });
  });

  describe('call log', () => {
    test('newest first, bounded by count and age', async () => {
      const h = await addHook(acme, 'log_only', 'bounded');
      for (let i = 0; i < 15; i++) await accepted(h, { i }, {}, 202);
      await f.tracker.ctx.db.query("UPDATE inbound_calls SET received_at = now() - interval '40 days' WHERE webhook_id = $1 AND body->>'i' = '0'", [h.id]);
      await pruneCalls(f.tracker.ctx.db, { retentionDays: 30, maxCalls: 10 });
      const left = await calls(h, 100);
      expect(left.map((c) => (c.body as { i: number }).i)).toEqual([14, 13, 12, 11, 10, 9, 8, 7, 6, 5]);
    });

    test('a flood of wrong-secret calls cannot push real calls out of the log', async () => {
      const h = await addHook(acme, 'log_only', 'flooded');
      for (let i = 0; i < 3; i++) await accepted(h, { i }, {}, 202);
      for (let i = 0; i < 20; i++) expect((await call({ id: h.id, secret: 'wrong' }, { guess: i })).status).toBe(401);
      // A refused call is logged once its answer has gone out: wait for all twenty before pruning.
      await eventually(() => calls(h, 100), (all) => all.filter((c) => c.status === 401).length === 20);
      await pruneCalls(f.tracker.ctx.db, { retentionDays: 30, maxCalls: 10 });
      const left = await calls(h, 100);
      expect(left.filter((c) => c.status === 202).map((c) => (c.body as { i: number }).i)).toEqual([2, 1, 0]);
      expect(left.filter((c) => c.status === 401)).toHaveLength(10);
    });

    test('expired Idempotency-Keys are dropped', async () => {
      await accepted(hooks.create_incident!, { title: 'k' }, { 'Idempotency-Key': 'old-key' });
      await f.tracker.ctx.db.query("UPDATE inbound_idempotency SET created_at = now() - interval '25 hours' WHERE key = 'old-key'");
      expect(await forgetExpired(f.tracker.ctx.db)).toBe(1);
    });
  });
});
