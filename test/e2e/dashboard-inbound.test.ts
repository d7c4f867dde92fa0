// Inbound webhooks and the records they create, in the dashboard, through the gateway and the real
// tracker: an owner creates a webhook (URL and secret shown once) that then accepts calls through
// the gateway, reads its recent calls, removes it, and reads incidents, expenses, work orders and
// unit notes filtered by unit and paged. Another account's webhooks and records are never reached.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { newId } from '../../shared/ids.js';
import { runVerb } from '../../tracker/admin/verbs.js';
import { findInboundWebhook } from '../../tracker/inbound/repository.js';
import { RECORD_KINDS } from '../../tracker/records/kinds.js';
import { insertRecord } from '../../tracker/records/repository.js';
import { account, createOwner, signIn, startDashboardStack, type DashboardStack, type FormClient } from '../helpers/dashboard.js';

let stack: DashboardStack;
let mine: string;
let theirs: string;
let me: FormClient;
let van: string;
let truck: string;
const their = { device: '', webhook: '', secret: '' };
const PASSWORD = 'correct horse battery staple';
const db = () => stack.tracker.ctx.db;
const run = (name: Parameters<typeof runVerb>[1], args: Record<string, unknown>) => runVerb(stack.tracker.ctx, name, args) as Promise<Record<string, string>>;
const webhookCount = async (accountId: string) => (await db().query<{ n: number }>('SELECT count(*)::int AS n FROM inbound_webhooks WHERE account_id = $1', [accountId]))[0]!.n;
/** The value of a box a secret is shown in. */
const shown = (text: string, id: string) => [...text.matchAll(/<textarea id="([^"]+)"[^>]*>([^<]*)<\/textarea>/g)].find((m) => m[1] === id)?.[2];

/** An outside system calling a webhook through the gateway, as the shown address says. */
function call(address: string, body: unknown): Promise<Response> {
  const url = new URL(address);
  return fetch(new URL(`${url.pathname}${url.search}`, stack.url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

beforeAll(async () => {
  stack = await startDashboardStack();
  mine = await account(stack, 'Mine');
  theirs = await account(stack, 'Theirs');
  await createOwner(stack, mine, 'me@mine.test', PASSWORD);
  van = (await run('devices add', { account: mine, imei: '359633100009101', name: 'Van 1' })).id!;
  truck = (await run('devices add', { account: mine, imei: '359633100009102', name: 'Truck 2' })).id!;
  their.device = (await run('devices add', { account: theirs, imei: '359633100009103', name: 'Their van' })).id!;
  const hook = await run('inbound add', { account: theirs, action: 'create_incident', name: 'Their helpdesk' });
  their.webhook = hook.id!;
  their.secret = hook.secret!;
  me = await signIn(stack, 'me@mine.test', PASSWORD);
}, 60_000);
afterAll(() => stack.close());

describe('inbound webhooks', () => {
  test('the empty list explains them; a bad form names its fields and creates nothing', async () => {
    const list = await me.get('/dashboard/inbound');
    expect(list.text).toContain('No inbound webhooks yet.');
    expect(list.text).not.toContain('Their helpdesk');
    for (const action of ['create_incident', 'create_expense', 'create_work_order', 'create_unit_note', 'log_only']) expect(list.text).toContain(`<option value="${action}"`);
    const bad = await me.post('/dashboard/inbound', { name: ' ', action: 'delete_everything' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('webhook name must not be empty');
    expect(bad.text).toContain('choose what a call does');
    expect(bad.text).toMatch(/id="field-action"[^>]*aria-invalid="true"/);
    expect(await webhookCount(mine)).toBe(0);
  });

  test('created with an action: URL and secret are shown once, and the address works through the gateway', async () => {
    await me.get('/dashboard/inbound');
    const created = await me.post('/dashboard/inbound', { name: 'ERP <expenses>', action: 'create_expense' });
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    expect(created.text).toContain('Inbound webhook “ERP &lt;expenses&gt;” created');
    expect(created.text).toContain('shown only this once');
    const url = shown(created.text, 'new-inbound-url')!;
    const secret = shown(created.text, 'new-inbound-secret')!;
    const address = shown(created.text, 'new-inbound-call')!.replaceAll('&amp;', '&');
    expect(url).toMatch(new RegExp(`^${stack.url}/api/inbound/inb_[A-Za-z0-9]+$`));
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(address).toBe(`${url}?secret=${secret}`);

    const accepted = await call(address, { deviceId: van, amount: 84.37, category: 'fuel', liters: 52.1, invoice: 'F-17' });
    expect(accepted.status).toBe(201);
    const refused = await call(address, { deviceId: van, amount: '12.50' });
    expect(refused.status).toBe(400);

    const list = await me.get('/dashboard/inbound');
    expect(list.text).toContain('ERP &lt;expenses&gt;');
    expect(list.text).toContain(url);
    expect(list.text).not.toContain(secret);
    const id = url.split('/').at(-1)!;
    const page = await me.get(`/dashboard/inbound/${id}`);
    expect(page.text).not.toContain(secret);
    const rows = page.text.split('<tr>').slice(2);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toContain('<span class="badge badge-critical">400</span>');
    expect(rows[0]).toContain('invalid field &quot;amount&quot;: must be a number');
    expect(rows[1]).toContain('<span class="badge badge-online">201</span>');
    expect(rows[1]).toMatch(/Created <span class="mono">exp_[A-Za-z0-9]+<\/span>/);
    expect(page.text).toContain('href="/dashboard/records/expenses"');
  });

  test('a log-only webhook shows each call’s body, escaped', async () => {
    await me.get('/dashboard/inbound');
    const created = await me.post('/dashboard/inbound', { name: 'Catch-all', action: 'log_only' });
    const address = shown(created.text, 'new-inbound-call')!.replaceAll('&amp;', '&');
    expect((await call(address, { note: '<img src=x onerror=alert(1)>' })).status).toBe(202);
    const page = await me.get(`/dashboard/inbound/${new URL(address).pathname.split('/').at(-1)}`);
    expect(page.text).toContain('<details><summary>Body</summary><pre class="mono">');
    expect(page.text).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(page.text).not.toContain('<img src=x');
  });

  test('removing it ends its address at once; the records it created stay', async () => {
    await me.get('/dashboard/inbound');
    const created = await me.post('/dashboard/inbound', { name: 'Short-lived', action: 'create_unit_note' });
    const address = shown(created.text, 'new-inbound-call')!.replaceAll('&amp;', '&');
    const id = new URL(address).pathname.split('/').at(-1)!;
    expect((await call(address, { deviceId: truck, text: 'Left mirror cracked' })).status).toBe(201);
    await me.get(`/dashboard/inbound/${id}`);
    const removed = await me.post(`/dashboard/inbound/${id}/remove`, {});
    expect(removed.status).toBe(303);
    expect((await me.get(removed.location!)).text).toContain('Inbound webhook removed.');
    expect((await call(address, { deviceId: truck, text: 'Again' })).status).toBe(401);
    const notes = (await me.get('/dashboard/records/unit-notes')).text;
    expect(notes).toContain('Left mirror cracked');
    expect(notes).toContain('a removed webhook');
  });

  test('another account’s webhook is a 404 to read and remove; forms need the CSRF token', async () => {
    const page = await me.get(`/dashboard/inbound/${their.webhook}`);
    expect(page.status).toBe(404);
    expect(page.text).not.toContain('Their helpdesk');
    await me.get('/dashboard/inbound');
    expect((await me.post(`/dashboard/inbound/${their.webhook}/remove`, {})).status).toBe(404);
    expect(await findInboundWebhook(db(), their.webhook)).not.toBeNull();
    const before = await webhookCount(mine);
    expect((await me.post('/dashboard/inbound', { name: 'Forged', action: 'log_only', _csrf: null })).status).toBe(403);
    expect((await me.post('/dashboard/inbound', { name: 'Forged', action: 'log_only' }, { origin: 'https://evil.example' })).status).toBe(403);
    expect(await webhookCount(mine)).toBe(before);
  });
});

describe('records created by inbound webhooks', () => {
  test('each kind has its own list with its fields; another account’s records are never shown', async () => {
    const theirCall = await fetch(`${stack.url}/api/inbound/${their.webhook}?secret=${their.secret}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ deviceId: their.device, title: 'Their incident' }),
    });
    expect(theirCall.status).toBe(201);
    expect((await me.get('/dashboard/records')).location).toBe('/dashboard/records/incidents');
    const incidents = (await me.get('/dashboard/records/incidents')).text;
    expect(incidents).toContain('No incidents.');
    expect(incidents).not.toContain('Their incident');
    expect(incidents).toMatch(/href="\/dashboard\/records\/incidents" aria-current="page"/);

    const expenses = (await me.get('/dashboard/records/expenses')).text;
    expect(expenses).toMatch(/<th scope="col">Amount<\/th><th scope="col">Currency<\/th><th scope="col">Category<\/th><th scope="col">Litres<\/th>/);
    expect(expenses).toContain('<td data-label="Amount" class="wrap">84.37</td>');
    expect(expenses).toContain(`<a href="/dashboard/devices/${van}">Van 1</a>`);
    expect(expenses).toContain('&quot;invoice&quot;: &quot;F-17&quot;');
    expect(expenses).toMatch(/<a href="\/dashboard\/inbound\/inb_[A-Za-z0-9]+">ERP &lt;expenses&gt;<\/a>/);
    expect((await me.get('/dashboard/records/everything')).status).toBe(404);
  });

  test('filtered by unit and paged 50 at a time, newest first; another account’s unit is a 404', async () => {
    const kind = RECORD_KINDS.find((k) => k.path === 'work-orders')!;
    const webhook = (await run('inbound add', { account: mine, action: 'create_work_order', name: 'Workshop' })).id!;
    const start = Date.UTC(2026, 10, 1, 8);
    for (let i = 0; i < 55; i++) {
      await insertRecord(db(), kind, {
        id: newId('wo'),
        accountId: mine,
        webhookId: webhook,
        deviceId: i % 5 === 0 ? truck : van,
        time: new Date(start + i * 60_000),
        receivedAt: new Date(),
        values: { title: `Order ${i}`, description: null, dueAt: i === 54 ? new Date('2026-12-01T10:00:00Z') : null },
        extra: {},
      });
    }
    const first = (await me.get('/dashboard/records/work-orders')).text;
    expect(first.split('<tr>').length - 2).toBe(50);
    expect(first.indexOf('Order 54')).toBeLessThan(first.indexOf('Order 53'));
    expect(first).toContain('<time datetime="2026-12-01T10:00:00.000Z">2026-12-01 10:00 UTC</time>');
    expect(first).not.toContain('>Order 4<');
    const older = /<a class="button button-secondary" href="([^"]+)">Older work orders<\/a>/.exec(first)![1]!.replaceAll('&amp;', '&');
    const second = (await me.get(older)).text;
    expect(second.split('<tr>').length - 2).toBe(5);
    expect(second).toContain('>Order 0<');
    expect(second).not.toContain('Older work orders');

    const trucks = (await me.get(`/dashboard/records/work-orders?deviceId=${truck}`)).text;
    expect(trucks.split('<tr>').length - 2).toBe(11);
    expect(trucks).toContain(`<option value="${truck}" selected>Truck 2</option>`);
    expect(trucks).not.toContain('>Order 54<');
    expect((await me.get(`/dashboard/records/incidents?deviceId=${truck}`)).text).toContain('No incidents for this unit.');
    const foreign = await me.get(`/dashboard/records/incidents?deviceId=${their.device}`);
    expect(foreign.status).toBe(404);
    expect(foreign.text).not.toContain('Their incident');
    expect((await me.get('/dashboard/records/work-orders?cursor=not-a-cursor')).status).toBe(400);
  });
});
