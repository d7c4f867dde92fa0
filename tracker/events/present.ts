// An event as the public API and the live feed show it.
import type { StoredEvent } from './types.js';

export function presentEvent(e: StoredEvent) {
  return { id: e.id, type: e.type, deviceId: e.deviceId, createdAt: e.createdAt, position: e.position, alert: e.alert, data: e.data };
}
