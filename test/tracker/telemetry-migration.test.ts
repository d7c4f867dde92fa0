// Migration 013 on both engines: positions stored before the telemetry vocabulary are rewritten to
// it (keys outside it move under io, engineHours from hours to seconds) and custom rules naming a
// moved key follow it; rows already in the vocabulary are left alone.
import { describe, expect, test } from '@jest/globals';
import { migrate } from '../../tracker/storage/migrate.js';
import { atMigration, ENGINES } from '../helpers/databases.js';

describe.each(ENGINES)('on %s', (engine) => {
  test('stored positions and rules are rewritten to the vocabulary', async () => {
    await atMigration(engine, '011', async (db) => {
      const stored = {
        teltonika: { priority: 0, event: 11, generationType: 5, gnssStatus: 1, fuel1: 310, power: 12.6, temp1: 4.5, io: { 66: 12600, 69: 1 } },
        h02: { alarm: 'sos', ignition: true, status: 4294966271 },
        osmand: { batteryLevel: 80, engineHours: 250.5, driver: 'abc', extra: { nested: true } },
        vocabulary: { ignition: false, odometer: 1200, in1: true },
      };
      for (const [i, [device, attributes]] of Object.entries(stored).entries()) {
        await db.query(`INSERT INTO positions (device_id, device_time, valid, lat, lng, speed, heading, attributes) VALUES ($1, $2, true, 1, 2, 0, 0, $3)`, [device, new Date(Date.UTC(2026, 10, 1, 0, i)), JSON.stringify(attributes)]);
      }
      await db.query(`INSERT INTO accounts (id, name) VALUES ('acc_1', 'Acme')`);
      const conditions = {
        rul_moved: { and: [{ '==': [{ var: 'attributes.status' }, 1] }, { '>': [{ var: ['attributes.gnssStatus', 0] }, 0] }, { '<': [{ var: 'attributes.power' }, 11] }] },
        rul_kept: { or: [{ var: 'attributes.temp12' }, { var: 'attributes.io.69' }, { missing: ['attributes.fuel'] }, { var: 'attributes' }] },
      };
      for (const [id, condition] of Object.entries(conditions)) await db.query(`INSERT INTO rules (id, account_id, name, severity, condition) VALUES ($1, 'acc_1', $1, 'info', $2)`, [id, JSON.stringify(condition)]);

      expect(Number(await migrate(db))).toBeGreaterThanOrEqual(13); // later migrations may follow

      const rows = Object.fromEntries((await db.query<{ device_id: string; attributes: unknown }>('SELECT device_id, attributes FROM positions')).map((r) => [r.device_id, r.attributes]));
      expect(rows).toEqual({
        teltonika: { priority: 0, event: 11, power: 12.6, temp1: 4.5, io: { 66: 12600, 69: 1, generationType: 5, gnssStatus: 1, fuel1: 310 } },
        h02: { alarm: 'sos', ignition: true, io: { status: 4294966271 } },
        osmand: { batteryLevel: 80, engineHours: 901800, io: { driver: 'abc', extra: { nested: true } } },
        vocabulary: { ignition: false, odometer: 1200, in1: true },
      });
      const rules = Object.fromEntries((await db.query<{ id: string; condition: unknown }>('SELECT id, condition FROM rules')).map((r) => [r.id, r.condition]));
      expect(rules).toEqual({
        rul_moved: { and: [{ '==': [{ var: 'attributes.io.status' }, 1] }, { '>': [{ var: ['attributes.io.gnssStatus', 0] }, 0] }, { '<': [{ var: 'attributes.power' }, 11] }] },
        rul_kept: conditions.rul_kept,
      });
    });
  });
});
