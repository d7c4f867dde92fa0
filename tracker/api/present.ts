// Records as the public API shows them (spec field names, ISO 8601 UTC times).
import type { Alert } from '../alerts/repository.js';
import type { Command } from '../commands/repository.js';
import type { Rule } from '../custom-rules/repository.js';
import type { Driver } from '../drivers/repository.js';
import type { StoredEvent } from '../events/types.js';
import type { Geofence } from '../geofences/repository.js';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function presentAlert(a: Alert) {
  return { id: a.id, type: a.type, severity: a.severity, deviceId: a.deviceId, message: a.message, createdAt: a.createdAt.toISOString(), status: a.status, acknowledgedAt: iso(a.acknowledgedAt) };
}

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

export function presentGeofence(g: Geofence) {
  return { id: g.id, name: g.name, description: g.description, shape: g.shape, createdAt: g.createdAt.toISOString(), updatedAt: g.updatedAt.toISOString() };
}

export function presentDriver(d: Driver) {
  return { id: d.id, name: d.name, phone: d.phone, licenseNumber: d.licenseNumber, uniqueId: d.uniqueId, deviceId: d.deviceId, createdAt: d.createdAt.toISOString(), updatedAt: d.updatedAt.toISOString() };
}

export function presentRule(r: Rule) {
  return {
    id: r.id,
    name: r.name,
    enabled: r.enabled,
    severity: r.severity,
    condition: r.condition,
    geofenceId: r.geofenceId,
    timeWindow: r.timeWindow,
    deviceIds: r.deviceIds,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

export function presentEvent(e: StoredEvent) {
  return { id: e.id, type: e.type, deviceId: e.deviceId, createdAt: e.createdAt, position: e.position, alert: e.alert, data: e.data };
}
