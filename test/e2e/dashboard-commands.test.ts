// The device page's recent commands: what was asked, its status, the reply and the token id that
// sent it, newest first, for the account's own unit only.
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { createCommand, deliverSent } from '../../tracker/commands/repository.js';
import { runVerb } from '../../tracker/admin/verbs.js';
import { account, createOwner, signIn, startDashboardStack, type DashboardStack, type FormClient } from '../helpers/dashboard.js';

let stack: DashboardStack;
let me: FormClient;
let unit: string;
let accountId: string;

beforeAll(async () => {
  stack = await startDashboardStack();
  accountId = await account(stack, 'Haulage');
  await createOwner(stack, accountId, 'ops@haulage.test', 'correct horse battery staple');
  unit = ((await runVerb(stack.tracker.ctx, 'devices add', { account: accountId, imei: '359633100008101', name: 'Truck 7' })) as { id: string }).id;
  me = await signIn(stack, 'ops@haulage.test', 'correct horse battery staple');
}, 60_000);
afterAll(() => stack.close());

test('a unit without commands says so', async () => {
  expect((await me.get(`/dashboard/devices/${unit}`)).text).toContain('No commands sent to this unit yet.');
});

test('recent commands show type, attributes, status, reply and the token id, newest first', async () => {
  const db = stack.tracker.ctx.db;
  await createCommand(db, { accountId, deviceId: unit, type: 'engineStop', attributes: {}, tokenId: 'tok_fleetops', ttlSeconds: 60 });
  await db.query("UPDATE commands SET status = 'sent', seq = 5 WHERE device_id = $1", [unit]);
  await deliverSent(db, unit, 5, 'Relay,1: <Success>!', null);
  await new Promise((r) => setTimeout(r, 5));
  await createCommand(db, { accountId, deviceId: unit, type: 'setInterval', attributes: { seconds: 30 }, tokenId: 'tok_erp', ttlSeconds: 60 });
  const text = (await me.get(`/dashboard/devices/${unit}`)).text;
  const panel = text.slice(text.indexOf('id="device-commands"'));
  expect(panel).toMatch(/setInterval<\/span> seconds=30<\/td>\s*<td data-label="Status">queued<\/td>[\s\S]*tok_erp[\s\S]*engineStop[\s\S]*delivered[\s\S]*Relay,1: &lt;Success&gt;![\s\S]*tok_fleetops/);
});
