// The device page's commands: sending one through the form (the unit's own types, the API's rules,
// the signed-in user recorded as its sender), refusals that queue nothing (CSRF, engine stop while
// moving, bad values, another account's unit), and the recent commands with status, reply and sender.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createCommand, deliverSent, listCommands } from '../../tracker/commands/repository.js';
import { runVerb } from '../../tracker/admin/verbs.js';
import { account, createOwner, FormClient, signIn, startDashboardStack, type DashboardStack } from '../helpers/dashboard.js';

let stack: DashboardStack;
let me: FormClient;
let rival: FormClient;
let accountId: string;
let listed: string;
let jt: string;
let never: string;

const addUnit = async (acc: string, imei: string, name: string) => ((await runVerb(stack.tracker.ctx, 'devices add', { account: acc, imei, name })) as { id: string }).id;
/** The unit as if it had connected over `protocol` and last reported `speed` km/h. */
const connected = (id: string, protocol: string, speed = 0) => stack.tracker.ctx.db.query('UPDATE devices SET protocol = $2, last_speed = $3 WHERE id = $1', [id, protocol, speed]);
const commandsOf = (id: string) => listCommands(stack.tracker.ctx.db, { accountId, deviceId: id, before: null, limit: 100 });
const panelOf = (text: string) => text.slice(text.indexOf('id="device-commands"'));

beforeAll(async () => {
  stack = await startDashboardStack({ ENGINE_STOP_MAX_SPEED_KMH: '5' });
  accountId = await account(stack, 'Haulage');
  await createOwner(stack, accountId, 'ops@haulage.test', 'correct horse battery staple');
  listed = await addUnit(accountId, '359633100008101', 'Truck 7');
  jt = await addUnit(accountId, '359633100008102', 'Truck 8');
  never = await addUnit(accountId, '359633100008103', 'Trailer 1');
  await connected(jt, 'jt808');
  me = await signIn(stack, 'ops@haulage.test', 'correct horse battery staple');
  const other = await account(stack, 'Rival');
  await createOwner(stack, other, 'boss@rival.test', 'another horse battery staple');
  rival = await signIn(stack, 'boss@rival.test', 'another horse battery staple');
}, 60_000);
afterAll(() => stack.close());

describe('recent commands', () => {
  test('a unit without commands says so', async () => {
    expect((await me.get(`/dashboard/devices/${listed}`)).text).toContain('No commands sent to this unit yet.');
  });

  test('type, attributes, status, reply and sender, newest first', async () => {
    const db = stack.tracker.ctx.db;
    await createCommand(db, { accountId, deviceId: listed, type: 'engineStop', attributes: {}, sender: { tokenId: 'tok_fleetops' }, ttlSeconds: 60 });
    await db.query("UPDATE commands SET status = 'sent', seq = 5 WHERE device_id = $1", [listed]);
    await deliverSent(db, listed, 5, 'Relay,1: <Success>!', null);
    await new Promise((r) => setTimeout(r, 5));
    await createCommand(db, { accountId, deviceId: listed, type: 'setInterval', attributes: { seconds: 30 }, sender: { tokenId: 'tok_erp' }, ttlSeconds: 60 });
    const panel = panelOf((await me.get(`/dashboard/devices/${listed}`)).text);
    expect(panel).toMatch(/setInterval<\/span> seconds=30<\/td>\s*<td data-label="Status"><span class="badge badge-command-queued">queued<\/span> <span class="status-detail">waiting for the unit until <time[\s\S]*tok_erp[\s\S]*engineStop[\s\S]*delivered[\s\S]*Relay,1: &lt;Success&gt;![\s\S]*tok_fleetops/);
  });
});

describe('sending a command from the device page', () => {
  test("the form offers the unit's protocol's types; a unit that never connected gets no form", async () => {
    const panel = panelOf((await me.get(`/dashboard/devices/${jt}`)).text);
    const options = [...panel.matchAll(/<option value="(\w+)"/g)].map((m) => m[1]);
    expect(options).toEqual(['locate', 'engineStop', 'engineResume', 'reboot', 'setInterval', 'custom']);
    expect(panel).toContain('name="hex"'); // JT/T 808 custom commands are bytes
    expect(panelOf((await me.get(`/dashboard/devices/${never}`)).text)).toContain('has not connected yet');
    expect(panelOf((await me.get(`/dashboard/devices/${never}`)).text)).not.toContain('Send command');
  });

  test('with the CSRF token: queued, shown in the list, recorded with the user as sender', async () => {
    await me.get(`/dashboard/devices/${jt}`);
    const sent = await me.post(`/dashboard/devices/${jt}/commands`, { type: 'setInterval', seconds: '60', text: '', hex: '' });
    expect(sent.status).toBe(303);
    expect(sent.location).toBe(`/dashboard/devices/${jt}?sent=setInterval#device-commands`);
    const [command] = await commandsOf(jt);
    expect(command).toMatchObject({ type: 'setInterval', attributes: { seconds: 60 }, status: 'queued', tokenId: null, userId: expect.stringMatching(/^usr_/) });
    const page = await me.get(sent.location!);
    expect(page.text).toContain('Command queued: <strong>Set the reporting interval</strong>');
    expect(panelOf(page.text)).toMatch(/setInterval<\/span> seconds=60<\/td>\s*<td data-label="Status"><span class="badge badge-command-queued">queued<\/span> <span class="status-detail">waiting for the unit until <time[\s\S]*ops@haulage\.test <span class="muted">\(dashboard\)<\/span>/);
     // The API's command log names the user, not a token.
    const { token } = (await runVerb(stack.tracker.ctx, 'tokens create', { account: accountId, scopes: 'read' })) as { token: string };
    const log = await fetch(`${stack.url}/api/public/v1/devices/${jt}/commands`, { headers: { Authorization: `Bearer ${token}` } });
    expect(((await log.json()) as { data: unknown[] }).data[0]).toMatchObject({ id: command!.id, tokenId: null, userId: command!.userId });
  });

  test('custom bytes as hex (spaces allowed) and engine stop with its confirmation', async () => {
    await me.get(`/dashboard/devices/${jt}`);
    expect((await me.post(`/dashboard/devices/${jt}/commands`, { type: 'custom', hex: '7e 82 01 00 00 7e' })).status).toBe(303);
    expect((await commandsOf(jt))[0]).toMatchObject({ type: 'custom', attributes: { hex: '7e820100007e' } });
    await me.get(`/dashboard/devices/${jt}`);
    const unconfirmed = await me.post(`/dashboard/devices/${jt}/commands`, { type: 'engineStop' });
    expect(unconfirmed.status).toBe(400);
    expect(unconfirmed.text).toContain('Tick the box to confirm the engine stop');
    expect((await commandsOf(jt))[0]!.type).toBe('custom');
    expect((await me.post(`/dashboard/devices/${jt}/commands`, { type: 'engineStop', confirm: 'yes' })).status).toBe(303);
    expect((await commandsOf(jt))[0]).toMatchObject({ type: 'engineStop', status: 'queued' });
  });

  test('without the CSRF token, or with a wrong one: refused, nothing queued', async () => {
    const before = (await commandsOf(jt)).length;
    await me.get(`/dashboard/devices/${jt}`);
    const missing = await me.post(`/dashboard/devices/${jt}/commands`, { type: 'reboot', _csrf: null });
    expect(missing.status).toBe(403);
    expect(missing.text).toContain('This form is out of date');
    const wrong = await me.post(`/dashboard/devices/${jt}/commands`, { type: 'reboot', _csrf: 'x'.repeat(43) });
    expect(wrong.status).toBe(403);
    expect(await commandsOf(jt)).toHaveLength(before);
  });

  test('engine stop while the unit moves: the refusal is shown and nothing is queued', async () => {
    const moving = await addUnit(accountId, '359633100008104', 'Truck 9');
    await connected(moving, 'gt06', 42);
    await me.get(`/dashboard/devices/${moving}`);
    const refused = await me.post(`/dashboard/devices/${moving}/commands`, { type: 'engineStop', confirm: 'yes' });
    expect(refused.status).toBe(409);
    expect(refused.text).toMatch(/last reported 42 km\/h: engine stop is refused above 5 km\/h/);
    expect(refused.text).toContain('There is a problem');
    expect(await commandsOf(moving)).toEqual([]);
    // Resuming is never refused.
    expect((await me.post(`/dashboard/devices/${moving}/commands`, { type: 'engineResume' })).status).toBe(303);
  });

  test('bad values: a clear error on the field, nothing queued', async () => {
    const gt = await addUnit(accountId, '359633100008105', 'Van 2');
    await connected(gt, 'gt06');
    const cases: [Record<string, string>, string, number][] = [
      [{ type: 'selfDestruct' }, 'Choose one of the commands this unit takes', 400],
      [{ type: 'setInterval', seconds: '' }, 'Enter the interval in seconds', 400],
      [{ type: 'setInterval', seconds: '5' }, 'The interval must be at least 10', 400],
      [{ type: 'setInterval', seconds: 'soon' }, 'The interval must be a number', 400],
      [{ type: 'reboot', seconds: '30' }, 'The interval is sent only with', 400],
      [{ type: 'custom', text: 'x'.repeat(201) }, 'The command text must be at most 200 characters', 400],
      [{ type: 'custom', text: 'Relé#' }, 'The command text must be printable ASCII', 400],
      [{ type: 'custom' }, 'Enter the command text', 400],
      [{ type: 'custom', text: 'A#', hex: '00' }, 'as text or as hex, not both', 400],
      [{ type: 'locate', text: 'WHERE#' }, 'Command text is sent only with a custom command', 400],
      // GT06 takes custom commands as text: refused by its encoder, as the API refuses it
      [{ type: 'custom', hex: '0102' }, 'GT06 custom commands are text', 400],
    ];
    for (const [fields, message, status] of cases) {
      await me.get(`/dashboard/devices/${gt}`);
      const res = await me.post(`/dashboard/devices/${gt}/commands`, fields);
      expect({ fields, status: res.status, shown: res.text.includes(message) }).toEqual({ fields, status, shown: true });
    }
    expect(await commandsOf(gt)).toEqual([]);
    // The GT06 form has no hex field.
    expect(panelOf((await me.get(`/dashboard/devices/${gt}`)).text)).not.toContain('name="hex"');
  });

  test("a user of another account cannot send to the unit (404, nothing queued), nor see it", async () => {
    const before = (await commandsOf(jt)).length;
    await rival.get('/dashboard/devices');
    const res = await rival.post(`/dashboard/devices/${jt}/commands`, { type: 'reboot' });
    expect(res.status).toBe(404);
    expect(res.text).toContain('There is no such device in this account.');
    expect((await rival.get(`/dashboard/devices/${jt}`)).status).toBe(404);
    expect(await commandsOf(jt)).toHaveLength(before);
  });

  test('signed out: sent to sign in, nothing queued', async () => {
    const before = (await commandsOf(jt)).length;
    const stranger = new FormClient(stack.url);
    const res = await stranger.post(`/dashboard/devices/${jt}/commands`, { type: 'reboot', _csrf: null });
    expect(res.status).toBe(303);
    expect(res.location).toMatch(/^\/dashboard\/login/);
    expect(await commandsOf(jt)).toHaveLength(before);
  });
});
