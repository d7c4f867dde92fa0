// A unit's answer finds its command: by the number it echoes (the newest of several sent with that
// number, as a 16-bit serial wraps), else the oldest sent; an answer saying the unit did not carry
// the command out fails it. On both database engines.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createAccount } from '../../tracker/accounts/repository.js';
import { createCommand, deliverSent, findCommand, recordSeq } from '../../tracker/commands/repository.js';
import { addDevice } from '../../tracker/devices/repository.js';
import type { Db } from '../../tracker/storage/db.js';
import { ENGINES, openTestDb } from '../helpers/databases.js';

describe.each(ENGINES)('command replies on %s', (engine) => {
  let db: Db;
  let close: () => Promise<void>;
  let accountId: string;
  let deviceId: string;

  beforeAll(async () => {
    const t = await openTestDb(engine);
    ({ db, close } = t);
    accountId = (await createAccount(db, 'Acme')).id;
    deviceId = (await addDevice(db, { accountId, imei: '359633100000321', name: 'Van', plate: '' })).id;
  });
  afterAll(() => close());

  /** A command sent with `seq`, `ageSeconds` ago. */
  async function sent(seq: number, ageSeconds: number): Promise<string> {
    const c = await createCommand(db, { accountId, deviceId, type: 'reboot', attributes: {}, sender: { tokenId: 'tok_x' }, ttlSeconds: 300 });
    await db.query("UPDATE commands SET status = 'sent', sent_at = now() - make_interval(secs => $2) WHERE id = $1", [c.id, ageSeconds]);
    await recordSeq(db, c.id, seq);
    return c.id;
  }
  const status = async (id: string) => (await findCommand(db, accountId, deviceId, id))!;

  test('by the echoed number, the newest of those that carry it; an unknown number takes the oldest sent', async () => {
    const stale = await sent(7, 3600); // went unanswered before the serial wrapped
    const other = await sent(8, 30);
    const fresh = await sent(7, 10);
    expect((await deliverSent(db, deviceId, 7, '0x8105 #7: success', null))?.id).toBe(fresh);
    expect((await deliverSent(db, deviceId, 99, 'OK', null))?.id).toBe(stale);
    expect((await deliverSent(db, deviceId, undefined, 'OK', null))?.id).toBe(other);
    expect(await deliverSent(db, deviceId, 7, 'late', null)).toBeNull();
  });

  test('an answer saying the unit did not carry it out fails the command, keeping the answer', async () => {
    const id = await sent(12, 5);
    await deliverSent(db, deviceId, 12, '0x8105 #12: not supported', null, true);
    expect(await status(id)).toMatchObject({ status: 'failed', reply: '0x8105 #12: not supported', error: 'the unit did not carry it out: 0x8105 #12: not supported', deliveredAt: null, endedAt: expect.any(Date) });
  });
});
