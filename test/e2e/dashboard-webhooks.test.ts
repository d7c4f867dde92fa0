// Outbound webhooks in the dashboard, through the gateway and the real tracker (its delivery worker
// running) with a real HTTP receiver: adding one shows the signing secret once, a test event
// reaches the receiver signed with it, the delivery log shows status codes and the next retry, and
// a disabled endpoint is enabled again. Another account's endpoints are never reached.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import { runVerb } from '../../tracker/admin/verbs.js';
import { EVENT_TYPES } from '../../tracker/events/types.js';
import { disableEndpoint, findEndpoint, listEndpoints } from '../../tracker/webhooks/endpoints.js';
import { account, createOwner, signIn, startDashboardStack, type DashboardStack, type FormClient } from '../helpers/dashboard.js';
import { enqueue, storedEvent } from '../helpers/webhook-events.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

let stack: DashboardStack;
let receiver: WebhookReceiver;
let mine: string;
let van: string;
let me: FormClient;
const their = { webhook: '' };
const PASSWORD = 'correct horse battery staple';
const db = () => stack.tracker.ctx.db;
const run = (name: Parameters<typeof runVerb>[1], args: Record<string, unknown>) => runVerb(stack.tracker.ctx, name, args) as Promise<Record<string, string>>;
const secretOf = (text: string) => /<textarea id="new-webhook-secret"[^>]*>([^<]+)<\/textarea>/.exec(text)?.[1];

/** Adds a webhook through the form; its id and secret. */
async function add(fields: Record<string, string | string[]>): Promise<{ id: string; secret: string }> {
  await me.get('/dashboard/webhooks');
  const res = await me.post('/dashboard/webhooks', { format: 'auto', ...fields });
  expect(res.status).toBe(201);
  const endpoints = await listEndpoints(db(), mine);
  return { id: endpoints.at(-1)!.id, secret: secretOf(res.text)! };
}

beforeAll(async () => {
  receiver = await WebhookReceiver.start();
  stack = await startDashboardStack({ WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' });
  mine = await account(stack, 'Mine');
  const theirs = await account(stack, 'Theirs');
  await createOwner(stack, mine, 'me@mine.test', PASSWORD);
  van = (await run('devices add', { account: mine, imei: '359633100009201', name: 'Van 1', plate: 'B-VN 1' })).id!;
  their.webhook = (await run('webhooks add', { account: theirs, url: receiver.url('/theirs') })).id!;
  me = await signIn(stack, 'me@mine.test', PASSWORD);
}, 60_000);
afterAll(async () => {
  await stack.close();
  await receiver.close();
});

describe('outbound webhooks', () => {
  test('the empty list explains them; the form offers every event type and format; bad input adds nothing', async () => {
    const list = await me.get('/dashboard/webhooks');
    expect(list.text).toContain('No webhooks yet.');
    expect(list.text).not.toContain('/theirs');
    for (const t of EVENT_TYPES) expect(list.text).toContain(`name="events" value="${t}"`);
    expect(list.text).toMatch(/id="event-all" name="events" value="\*" checked/);
    for (const f of ['auto', 'standard', 'slack', 'discord', 'teams', 'googlechat']) expect(list.text).toContain(`<option value="${f}"`);

    const empty = await me.post('/dashboard/webhooks', { url: ' ', events: null, format: 'auto' });
    expect(empty.status).toBe(400);
    expect(empty.text).toContain('URL must not be empty');
    expect(empty.text).toContain('choose the events to send, or all events');
    const odd = await me.post('/dashboard/webhooks', { url: receiver.url(), events: ['sos', 'everything'], format: 'xml' });
    expect(odd.status).toBe(400);
    expect(odd.text).toContain('choose a format from the list');
    const ftp = await me.post('/dashboard/webhooks', { url: 'ftp://example.com/hook', events: ['*'], format: 'auto' });
    expect(ftp.status).toBe(400);
    expect(ftp.text).toContain('url must use https');
    expect(ftp.text).toMatch(/id="field-url"[^>]*aria-invalid="true"/);
    expect(ftp.text).toContain('value="ftp://example.com/hook"');
    expect(await listEndpoints(db(), mine)).toEqual([]);
  });

  test('added with chosen events: the secret is shown once; “all events” wins over a choice', async () => {
    await me.get('/dashboard/webhooks');
    const res = await me.post('/dashboard/webhooks', { url: receiver.url('/erp'), events: ['sos', 'speeding', 'sos'], format: 'standard' });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const secret = secretOf(res.text)!;
    expect(secret).toMatch(/^whsec_/);
    expect(res.text).toContain('shown only this once');
    const [endpoint] = await listEndpoints(db(), mine);
    expect(endpoint).toMatchObject({ url: receiver.url('/erp'), events: ['sos', 'speeding'], format: 'standard', status: 'enabled' });

    const list = (await me.get('/dashboard/webhooks')).text;
    expect(list).toContain(receiver.url('/erp'));
    expect(list).toContain('<span class="badge">sos</span> <span class="badge">speeding</span>');
    expect(list).not.toContain(secret);
    expect((await me.get(`/dashboard/webhooks/${endpoint!.id}`)).text).not.toContain(secret);

    const all = await add({ url: receiver.url('/all'), events: ['speeding', '*'] });
    expect((await findEndpoint(db(), all.id))!.events).toEqual(['*']);
  });

  test('a test event reaches the receiver, signed with the secret shown; the log shows the answer', async () => {
    const { id, secret } = await add({ url: receiver.url('/test'), events: ['*'] });
    receiver.respond = () => ({ status: 204 });
    const before = receiver.received.length;
    await me.get(`/dashboard/webhooks/${id}`);
    const res = await me.post(`/dashboard/webhooks/${id}/test`, {});
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/Test event delivered: the receiver answered HTTP 204 in \d+ ms\./);
    const got = receiver.received.slice(before);
    expect(got).toHaveLength(1);
    const payload = new Webhook(secret).verify(got[0]!.body, got[0]!.headers as Record<string, string>) as { type: string; device: { id: string; name: string } };
    expect(payload).toMatchObject({ type: 'test', device: { id: van, name: 'Van 1' } });
    const row = res.text.split('<tr>')[2]!;
    expect(row).toContain('<td data-label="Event" class="mono">test</td>');
    expect(row).toContain('<span class="badge badge-online">HTTP 204</span>');
    expect(row).toContain(String(got[0]!.headers['webhook-id']));

    receiver.respond = () => ({ status: 500 });
    const failed = await me.post(`/dashboard/webhooks/${id}/test`, {});
    expect(failed.text).toContain('The test event was not delivered');
    expect(failed.text).toContain('The receiver answered HTTP 500.');
    expect(failed.text.split('<tr>')[2]).toContain('<span class="badge badge-critical">HTTP 500</span>');
    receiver.respond = () => ({ status: 200 });
  });

  test('an event the receiver refuses is logged with its status code and the next retry', async () => {
    const { id } = await add({ url: receiver.url('/events'), events: ['sos'] });
    receiver.respond = (r) => ({ status: r.body.includes('"type":"sos"') ? 503 : 200 });
    const before = receiver.received.length;
    await enqueue(db(), [storedEvent(mine, van, { type: 'sos' })]);
    await receiver.waitFor((got) => got.length > before);
    let page = '';
    // The attempt is logged after the receiver answered: up to 15 s on a loaded machine.
    for (let i = 0; i < 150 && !page.includes('HTTP 503'); i++) {
      page = (await me.get(`/dashboard/webhooks/${id}`)).text;
      if (!page.includes('HTTP 503')) await new Promise((r) => setTimeout(r, 100));
    }
    const row = page.split('<tr>')[2]!;
    expect(row).toContain('<td data-label="Event" class="mono">sos</td>');
    expect(row).toContain('<span class="badge badge-critical">HTTP 503</span>');
    expect(row).toMatch(/<td data-label="Next retry"><time datetime="[^"]+">\d{4}-\d\d-\d\d \d\d:\d\d UTC<\/time><\/td>/);
    expect(page).toContain('1 waiting, 0 delivered, 0 failed');
    expect(page).toContain('<span class="badge badge-warning">Failing</span>');
    receiver.respond = () => ({ status: 200 });
  });

  test('a disabled webhook says why and is enabled again with its button; the owner was alerted', async () => {
    const { id } = await add({ url: receiver.url('/gone'), events: ['*'] });
    await db().transaction((tx) => disableEndpoint(tx, id, 'the receiver answered 410 Gone'));
    const page = await me.get(`/dashboard/webhooks/${id}`);
    expect(page.text).toContain('This webhook is disabled');
    expect(page.text).toContain('because the receiver answered 410 Gone');
    expect(page.text).toContain('<span class="badge badge-critical">Disabled</span>');
    const alerts = (await me.get('/dashboard/alerts')).text;
    expect(alerts).toContain('<td data-label="Device">Account</td>');
    expect(alerts).toContain('webhook_disabled');

    const enabled = await me.post(`/dashboard/webhooks/${id}/enable`, {});
    expect(enabled.status).toBe(303);
    expect((await me.get(enabled.location!)).text).toContain('Webhook enabled.');
    expect(await findEndpoint(db(), id)).toMatchObject({ status: 'enabled', disabledAt: null, disabledReason: null });
  });

  test('removing it stops deliveries to it', async () => {
    const { id } = await add({ url: receiver.url('/old'), events: ['*'] });
    await me.get(`/dashboard/webhooks/${id}`);
    const removed = await me.post(`/dashboard/webhooks/${id}/remove`, {});
    expect(removed.status).toBe(303);
    expect((await me.get(removed.location!)).text).toContain('Webhook removed.');
    expect(await findEndpoint(db(), id)).toBeNull();
  });

  test('another account’s webhook is a 404 for every page and button; forms need the CSRF token', async () => {
    // Retries of the refused event may still arrive; no test message may.
    const tests = () => receiver.received.filter((r) => (JSON.parse(r.body) as { type: string }).type === 'test').length;
    const before = tests();
    expect((await me.get(`/dashboard/webhooks/${their.webhook}`)).status).toBe(404);
    await me.get('/dashboard/webhooks');
    for (const action of ['test', 'enable', 'remove']) expect((await me.post(`/dashboard/webhooks/${their.webhook}/${action}`, {})).status).toBe(404);
    expect(tests()).toBe(before);
    expect(await findEndpoint(db(), their.webhook)).not.toBeNull();
    const count = (await listEndpoints(db(), mine)).length;
    expect((await me.post('/dashboard/webhooks', { url: receiver.url('/forged'), events: ['*'], format: 'auto', _csrf: null })).status).toBe(403);
    expect((await me.post('/dashboard/webhooks', { url: receiver.url('/forged'), events: ['*'], format: 'auto' }, { origin: 'https://evil.example' })).status).toBe(403);
    const { id } = (await listEndpoints(db(), mine))[0]!;
    expect((await me.post(`/dashboard/webhooks/${id}/test`, { _csrf: null })).status).toBe(403);
    expect(tests()).toBe(before);
    expect(await listEndpoints(db(), mine)).toHaveLength(count);
  });
});
