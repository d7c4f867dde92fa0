// Migration 023 on both engines: the fuel rule's readings leave the stored rules' state; its flags
// and the other rules' state stay, and a state with nothing left but its time goes.
import { describe, expect, test } from '@jest/globals';
import { migrate } from '../../tracker/storage/migrate.js';
import { atMigration, ENGINES } from '../helpers/databases.js';

describe.each(ENGINES)('on %s', (engine) => {
  test('stored fuel readings are dropped, flags and other rules kept', async () => {
    await atMigration(engine, '022', async (db) => {
      await db.query(`INSERT INTO accounts (id, name) VALUES ('acc_1', 'Acme')`);
      const readings = [{ t: 1, l: 50 }, { t: 2, l: 49, p: 81 }];
      const stored = {
        dev_low: { t: 2, fuel: { readings, low: true } },
        dev_plain: { t: 2, fuel: { readings } },
        dev_speeding: { t: 2, fuel: { readings }, speeding: { since: 1, last: 2 } },
        dev_other: { t: 5, geofences: { inside: ['geo_1'] } },
      };
      for (const [i, [id, state]] of Object.entries(stored).entries()) {
        await db.query(`INSERT INTO devices (id, account_id, imei, name) VALUES ($1, 'acc_1', $2, $1)`, [id, `86000000000000${i}`]);
        await db.query('INSERT INTO device_rule_state (device_id, state) VALUES ($1, $2)', [id, JSON.stringify(state)]);
      }

      expect(Number(await migrate(db))).toBeGreaterThanOrEqual(23);

      const rows = await db.query<{ device_id: string; state: string }>('SELECT device_id, state FROM device_rule_state');
      expect(Object.fromEntries(rows.map((r) => [r.device_id, JSON.parse(r.state)]))).toEqual({
        dev_low: { t: 2, fuel: { low: true } },
        dev_speeding: { t: 2, speeding: { since: 1, last: 2 } },
        dev_other: { t: 5, geofences: { inside: ['geo_1'] } },
      });
    });
  });
});
