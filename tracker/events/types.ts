// The events the tracker raises (the spec's Events table) and the shape in which they leave the
// engine: written in the same transaction as the positions that caused them, then handed to the
// listeners of that transaction (outbound webhooks enqueue their deliveries there).
import type { Severity } from '../alerts/repository.js';
import type { Queryable } from '../storage/db.js';

export const EVENT_TYPES = [
  'sos',
  'speeding',
  'geofence_enter',
  'geofence_exit',
  'fuel_alert',
  'fuel_alert_critical',
  'device_online',
  'device_offline',
  'maintenance_due',
  'custom_rule_triggered',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

// The severity of the alert an event opens; alerts/ defines it, so custom rules name it without events/.
export type { Severity };

/** The position an event was judged on, in the public API's units (km/h, degrees from north). */
export interface EventPosition {
  lat: number;
  lng: number;
  speed: number;
  heading: number;
  /** ISO 8601 UTC. */
  timestamp: string;
}

export interface StoredEvent {
  id: number;
  accountId: string;
  deviceId: string;
  type: EventType;
  /** ISO 8601 UTC. */
  createdAt: string;
  position: EventPosition | null;
  /** The alert this event opened, if it needs attention. */
  alert: { id: number; severity: Severity; message: string } | null;
  /** Type-specific details (geofence id and name, speed limit, fuel readings, rule id…). */
  data: Record<string, unknown>;
}

/** Runs inside the transaction that stored the events; a throw rolls the whole batch back. */
export type EventListener = (tx: Queryable, events: readonly StoredEvent[]) => Promise<void>;
