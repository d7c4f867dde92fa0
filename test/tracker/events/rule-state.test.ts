// The rules' state a batch judges from is the one the database holds, and a unit's fuel window the
// one its stored positions hold: a unit judged meanwhile by another tracker is judged on from what
// that tracker stored, and a batch that rolled back leaves nothing of its state or window behind.
// On both engines, through the batcher as ingest uses it.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createLogger } from '../../../shared/logger.js';
import { EventEngine } from '../../../tracker/events/engine.js';
import type { EventListener } from '../../../tracker/events/types.js';
import { PositionBatcher } from '../../../tracker/ingest/batcher.js';
import type { DecodedPosition } from '../../../tracker/protocols/types.js';
import { ENGINES } from '../../helpers/databases.js';
import { SEQUENCE, startTrackerFixture, type TrackerFixture } from '../../helpers/tracker-app.js';


describe.each(ENGINES)('the rules’ state on %s', (engine) => {
  let f: TrackerFixture;
  let fleet: string;
  beforeAll(async () => {
    f = await startTrackerFixture(engine);
    fleet = await f.account('Fleet');
  }, 120_000);
  afterAll(() => f.close());

  /** A batcher with its own events engine, as another tracker process has. */
  const tracker = (listeners: EventListener[] = []) => {
    const events = new EventEngine(listeners);
    const writers = engine === 'pglite' ? 1 : 2;
    return new PositionBatcher(f.tracker.ctx.db, createLogger('tracker', 'silent'), (tx, stored, reports, states) => events.judge(tx, stored, reports, states), { maxDelayMs: 5, maxRows: 2000, writers, sequence: SEQUENCE });
  };
  const start = Math.floor(Date.now() / 1000) * 1000 - 600_000;
  /** A report every 5 s of the unit's fuel in litres. */
  const fuel = (deviceId: string, i: number, litres: number) => [
    { deviceId, position: { deviceTime: new Date(start + i * 5000), valid: true, lat: 38.7, lng: -9.1, speed: 0, heading: 0, attributes: { fuel: litres } } satisfies DecodedPosition },
  ];
  const events = async (deviceId: string) =>
    (await f.tracker.ctx.db.query<{ type: string }>('SELECT type FROM events WHERE device_id = $1 ORDER BY id', [deviceId])).map((e) => e.type);

  test('a unit whose fuel another tracker judged meanwhile: its drop is raised once', async () => {
    const unit = await f.device(fleet, '359633100009401', 'Roaming tank');
    const here = tracker();
    const there = tracker();
    for (let i = 0; i < 3; i++) await here.add(fuel(unit, i, 50));
    // The tank drains by 20 litres while the unit reports through the other tracker, which raises it.
    for (let i = 3; i < 6; i++) await there.add(fuel(unit, i, 30));
    expect(await events(unit)).toEqual(['fuel_alert_critical']);
    // Back here: this tracker judges on from the other's readings, and the drop is not raised again.
    for (let i = 6; i < 9; i++) await here.add(fuel(unit, i, 30));
    expect(await events(unit)).toEqual(['fuel_alert_critical']);
  });

  test('a batch that rolled back leaves no state: the same readings sent again raise the drop', async () => {
    const unit = await f.device(fleet, '359633100009402', 'Retried tank');
    let refuse = true;
    // A listener that fails once, as a webhook enqueue on a database in trouble would: the batch rolls back.
    const failing: EventListener = async () => {
      if (refuse) throw new Error('refused once');
    };
    const batcher = tracker([failing]);
    for (let i = 0; i < 3; i++) await batcher.add(fuel(unit, i, 50));
    const drained = [3, 4, 5].flatMap((i) => fuel(unit, i, 30));
    await expect(batcher.add(drained)).rejects.toThrow('refused once');
    expect(await events(unit)).toEqual([]);
    // The unit got no ACK and sends them again.
    refuse = false;
    await batcher.add(drained);
    expect(await events(unit)).toEqual(['fuel_alert_critical']);
  });
});
