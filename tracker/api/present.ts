// Records as the public API shows them (spec field names, ISO 8601 UTC times).
import type { Alert } from '../alerts/repository.js';
import type { Rule } from '../custom-rules/repository.js';
import type { Driver } from '../drivers/repository.js';
import type { Geofence } from '../geofences/repository.js';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function presentAlert(a: Alert) {
  return { id: a.id, type: a.type, severity: a.severity, deviceId: a.deviceId, message: a.message, createdAt: a.createdAt.toISOString(), status: a.status, acknowledgedAt: iso(a.acknowledgedAt) };
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
