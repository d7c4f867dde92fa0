// Events as the events engine hands them to its listeners, for webhook tests: built here, then
// enqueued through the outbox listener inside a transaction, as the engine's batch would.
import type { RaisedEvent } from '../../tracker/events/types.js';
import type { Db } from '../../tracker/storage/db.js';
import { enqueueDeliveries } from '../../tracker/webhooks/outbox.js';

// Far above the ids the events engine gives its own events in a fresh database, so the two never meet.
let nextId = 1_000_000_001;

export function storedEvent(accountId: string, deviceId: string, overrides: Partial<RaisedEvent> = {}): RaisedEvent {
  return {
    id: nextId++,
    accountId,
    deviceId,
    type: 'sos',
    createdAt: new Date().toISOString(),
    position: { lat: 52.520008, lng: 13.404954, speed: 42, heading: 90, timestamp: new Date().toISOString(), valid: true, lastKnown: false },
    alert: null,
    data: {},
    attributes: {},
    ...overrides,
  };
}

export function enqueue(db: Db, events: RaisedEvent[]): Promise<void> {
  return db.transaction((tx) => enqueueDeliveries(tx, events));
}
