// The outbox: for each stored event, one delivery row per enabled endpoint of its account that wants
// that event type, written in the transaction that stored the event (and its positions), so a
// delivery exists exactly when the event does. Workers in any tracker process are then woken.
// It runs inside the ingest batch, before the devices get their ACKs: one round trip when no
// endpoint is concerned, two when one is.
import type { EventListener } from '../events/types.js';
import { DELIVERIES_CHANNEL } from './endpoints.js';
import { eventPayload, type PayloadDevice } from './payload.js';

interface Row {
  endpoint_id: string;
  account_id: string;
  events: string[];
  device_id: string | null;
  name: string;
  plate: string;
  imei: string;
}

export const enqueueDeliveries: EventListener = async (tx, events) => {
  if (events.length === 0) return;
  // The accounts' enabled endpoints, each with the batch's devices of its account.
  const rows = await tx.query<Row>(
    `SELECT e.id AS endpoint_id, e.account_id, e.events, d.id AS device_id, d.name, d.plate, d.imei
     FROM webhook_endpoints e LEFT JOIN devices d ON d.account_id = e.account_id AND d.id = ANY($2)
     WHERE e.account_id = ANY($1) AND e.status = 'enabled'`,
    [[...new Set(events.map((e) => e.accountId))], [...new Set(events.map((e) => e.deviceId))]],
  );
  if (rows.length === 0) return;
  const endpoints = new Map<string, Row>(rows.map((r) => [r.endpoint_id, r]));
  const devices = new Map<string, PayloadDevice>();
  for (const r of rows) if (r.device_id) devices.set(`${r.account_id}/${r.device_id}`, { id: r.device_id, name: r.name, plate: r.plate, imei: r.imei });

  const out: { endpoint: string; event: number; account: string; type: string; payload: string }[] = [];
  for (const event of events) {
    let payload: string | null = null;
    for (const e of endpoints.values()) {
      if (e.account_id !== event.accountId || !(e.events.includes('*') || e.events.includes(event.type))) continue;
      payload ??= JSON.stringify(eventPayload(event, devices.get(`${event.accountId}/${event.deviceId}`) ?? null));
      out.push({ endpoint: e.endpoint_id, event: event.id, account: event.accountId, type: event.type, payload });
    }
  }
  if (out.length === 0) return;
  await tx.query(
    `WITH inserted AS (
       INSERT INTO webhook_deliveries (endpoint_id, event_id, account_id, event_type, payload)
       SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::json[])
       ON CONFLICT (endpoint_id, event_id) DO NOTHING
       RETURNING 1
     )
     SELECT pg_notify($6, '') FROM (SELECT 1 FROM inserted LIMIT 1) AS any_row`,
    [out.map((r) => r.endpoint), out.map((r) => r.event), out.map((r) => r.account), out.map((r) => r.type), out.map((r) => r.payload), DELIVERIES_CHANNEL],
  );
};
