// The outbox: for each stored event, one delivery row per enabled endpoint of its account that wants
// that event type, written in the transaction that stored the event (and its positions), so a
// delivery exists exactly when the event does. Workers in any tracker process are then woken.
import type { EventListener } from '../events/types.js';
import { DELIVERIES_CHANNEL } from './endpoints.js';
import { eventPayload, type PayloadDevice } from './payload.js';

export const enqueueDeliveries: EventListener = async (tx, events) => {
  if (events.length === 0) return;
  const accounts = [...new Set(events.map((e) => e.accountId))];
  const endpoints = await tx.query<{ id: string; account_id: string; events: string[] }>(
    "SELECT id, account_id, events FROM webhook_endpoints WHERE account_id = ANY($1) AND status = 'enabled'",
    [accounts],
  );
  if (endpoints.length === 0) return;

  const deviceIds = [...new Set(events.map((e) => e.deviceId))];
  const devices = new Map(
    (await tx.query<PayloadDevice & { account_id: string }>('SELECT id, account_id, name, plate, imei FROM devices WHERE id = ANY($1)', [deviceIds])).map(
      ({ account_id, ...d }) => [`${account_id}/${d.id}`, d],
    ),
  );
  const rows: { endpoint: string; event: number; account: string; type: string; payload: string }[] = [];
  for (const event of events) {
    const wanted = endpoints.filter((e) => e.account_id === event.accountId && (e.events.includes('*') || e.events.includes(event.type)));
    if (wanted.length === 0) continue;
    const payload = JSON.stringify(eventPayload(event, devices.get(`${event.accountId}/${event.deviceId}`) ?? null));
    for (const e of wanted) rows.push({ endpoint: e.id, event: event.id, account: event.accountId, type: event.type, payload });
  }
  if (rows.length === 0) return;
  await tx.query(
    `INSERT INTO webhook_deliveries (endpoint_id, event_id, account_id, event_type, payload)
     SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::json[])
     ON CONFLICT (endpoint_id, event_id) DO NOTHING`,
    [rows.map((r) => r.endpoint), rows.map((r) => r.event), rows.map((r) => r.account), rows.map((r) => r.type), rows.map((r) => r.payload)],
  );
  await tx.query('SELECT pg_notify($1, $2)', [DELIVERIES_CHANNEL, '']);
};
