// Records as the public API shows them (spec field names, ISO 8601 UTC times).
import type { Alert } from '../alerts/repository.js';
import type { Command } from '../commands/repository.js';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function presentAlert(a: Alert) {
  return { id: a.id, type: a.type, severity: a.severity, deviceId: a.deviceId, message: a.message, createdAt: a.createdAt.toISOString() };
}

export function presentCommand(c: Command) {
  return {
    id: c.id,
    deviceId: c.deviceId,
    type: c.type,
    status: c.status,
    createdAt: c.createdAt.toISOString(),
    expiresAt: c.expiresAt.toISOString(),
    sentAt: iso(c.sentAt),
    deliveredAt: iso(c.deliveredAt),
    endedAt: iso(c.endedAt),
    reply: c.reply,
    position: c.position,
    error: c.error,
  };
}
