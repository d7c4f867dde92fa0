// The standard outbound webhook payload: what integrators receive for each event (chat formats are rendered
// from it). Fixed when the event is stored, so a later rename of the device does not rewrite history.
import type { EventPosition, RaisedEvent, Severity } from '../events/types.js';
import type { Telemetry } from '../positions/telemetry.js';

export interface PayloadDevice {
  id: string;
  name: string;
  plate: string;
  imei: string;
}

export interface WebhookPayload {
  /** The event's id (as listed by GET /events); a test message has id 0. */
  id: number;
  /** An event type, or "test" for a message sent with `webhooks test`. */
  type: string;
  /** ISO 8601 UTC. */
  createdAt: string;
  device: PayloadDevice | null;
  /** The fix that raised the event, or the unit's last known position (`lastKnown: true`); null when there is none. */
  position: EventPosition | null;
  /**
   * The telemetry at the event, in the vocabulary's units (docs/telemetry.md). Absent from deliveries
   * queued before payloads carried it.
   */
  attributes?: Telemetry;
  /** Present when the event opened an alert. */
  alert?: { id: number; severity: Severity; message: string };
  data: Record<string, unknown>;
}

export function eventPayload(event: RaisedEvent, device: PayloadDevice | null): WebhookPayload {
  return {
    id: event.id,
    type: event.type,
    createdAt: event.createdAt,
    device,
    position: event.position,
    attributes: event.attributes,
    ...(event.alert ? { alert: event.alert } : {}),
    data: event.data,
  };
}

export function testPayload(device: PayloadDevice | null, now = new Date()): WebhookPayload {
  return {
    id: 0,
    type: 'test',
    createdAt: now.toISOString(),
    device,
    position: null,
    attributes: {},
    data: { message: 'Test message: this endpoint receives the fleet tracker events.' },
  };
}
