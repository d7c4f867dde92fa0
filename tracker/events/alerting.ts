// Which events open an alert, with which severity, and the alert's text.
//
// Events that need someone's attention open alerts: sos and fuel_alert_critical are critical,
// speeding and device_offline warnings, fuel_alert and maintenance_due info, and a custom rule's
// alert has the rule's severity. geofence_enter, geofence_exit and device_online are routine
// state changes: they are events (listed, delivered to webhooks) but open no alert, or the open
// alerts would fill with every arrival at the depot.
import type { Draft } from './evaluators/types.js';
import type { EventType, Severity } from './types.js';

const SEVERITY: Partial<Record<EventType, Severity>> = {
  sos: 'critical',
  fuel_alert_critical: 'critical',
  speeding: 'warning',
  device_offline: 'warning',
  fuel_alert: 'info',
  maintenance_due: 'info',
};

export function severityOf(draft: Pick<Draft, 'type' | 'severity'>): Severity | null {
  if (draft.type === 'custom_rule_triggered') return draft.severity ?? 'info';
  return SEVERITY[draft.type] ?? null;
}

const MAX_MESSAGE = 500;

export function alertMessage(type: EventType, deviceName: string, data: Record<string, unknown>): string {
  const d = data as Record<string, string | number | undefined>;
  const fuel = d.fuelLitres !== undefined ? `${d.fuelLitres} L` : `${d.fuelPercent} %`;
  const text: Record<EventType, () => string> = {
    sos: () => `SOS from ${deviceName}`,
    speeding: () => `${deviceName} is speeding: ${d.speed} km/h (limit ${d.speedLimit} km/h)`,
    geofence_enter: () => `${deviceName} entered ${d.geofenceName}`,
    geofence_exit: () => `${deviceName} left ${d.geofenceName}`,
    fuel_alert: () => `${deviceName} is low on fuel: ${fuel}`,
    fuel_alert_critical: () => `${deviceName} lost ${d.dropLitres} L of fuel within ${d.windowSeconds} s`,
    device_online: () => `${deviceName} came online`,
    device_offline: () => `${deviceName} went offline`,
    maintenance_due: () => `${deviceName} is due for maintenance: ${d.kind === 'odometer' ? 'odometer' : 'engine hours'} reached ${d.dueAt} ${d.unit}`,
    custom_rule_triggered: () => `${deviceName}: rule "${d.ruleName}" triggered`,
  };
  return text[type]().slice(0, MAX_MESSAGE);
}
