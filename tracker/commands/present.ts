// A command as the public API and the live feed show it (spec field names, ISO 8601 UTC times).
import type { Command } from './repository.js';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function presentCommand(c: Command) {
  return {
    id: c.id,
    deviceId: c.deviceId,
    type: c.type,
    attributes: c.attributes,
    tokenId: c.tokenId,
    userId: c.userId,
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
