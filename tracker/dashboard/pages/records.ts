// Records inbound webhooks created (incidents, expenses, work orders, unit notes): one read-only
// list per kind, newest first, filtered by unit, 50 to a page with a link to older ones. The
// columns come from the kinds' descriptions in records/kinds.ts.
import { Router } from 'express';
import { z } from 'zod';
import { ApiError } from '../../../shared/errors.js';
import type { InboundAction } from '../../../shared/inbound.js';
import type { TrackerContext } from '../../context.js';
import { listDevices, type Device } from '../../devices/repository.js';
import { listInboundWebhooks } from '../../inbound/repository.js';
import { RECORD_KINDS, type Field, type RecordKind } from '../../records/kinds.js';
import { listRecords, type StoredRecord } from '../../records/repository.js';
import { decodeCreatedCursor } from '../../storage/paging.js';
import { field } from '../forms.js';
import { html, type Html } from '../html.js';
import { BASE, page, when } from '../layout.js';
import { paged } from '../page-links.js';
import { sessionOf } from '../security.js';
import { deviceUrl, ownDevice } from './devices.js';

const PAGE_SIZE = 50;

/** Page titles by the kinds' paths. */
const TITLES: Record<string, string> = { incidents: 'Incidents', expenses: 'Expenses', 'work-orders': 'Work orders', 'unit-notes': 'Unit notes' };

const FIELD_LABELS: Record<string, string> = {
  title: 'Title',
  message: 'Message',
  severity: 'Severity',
  amount: 'Amount',
  currency: 'Currency',
  category: 'Category',
  liters: 'Litres',
  description: 'Description',
  dueAt: 'Due',
  text: 'Note',
};

const Query = z.object({ deviceId: z.string().max(64).optional(), cursor: z.string().max(300).optional() });

/** The list of the records an action creates. */
export function recordsUrl(action: Exclude<InboundAction, 'log_only'>): string {
  const kind = RECORD_KINDS.find((k) => k.action === action)!;
  return `${BASE}/records/${kind.path}`;
}

function value(f: Field, v: unknown): Html {
  if (v === null || v === undefined || v === '') return html`<span class="muted">–</span>`;
  if (f.type === 'time') return when(new Date(v as string | Date));
  if (f.name === 'severity') return html`<span class="badge badge-${String(v)}">${String(v)}</span>`;
  return html`${String(v)}`;
}

function extra(r: StoredRecord): Html {
  if (Object.keys(r.extra).length === 0) return html`<span class="muted">–</span>`;
  return html`<details><summary>${Object.keys(r.extra).length} more</summary><pre class="mono">${JSON.stringify(r.extra, null, 2)}</pre></details>`;
}

function recordTable(kind: RecordKind, records: StoredRecord[], devices: Map<string, string>, webhooks: Map<string, string>, filtered: boolean): Html {
  const title = TITLES[kind.path]!;
  if (records.length === 0) {
    return html`<div class="empty"><p><strong>No ${title.toLowerCase()}${filtered ? ' for this unit' : ''}.</strong></p><p>An inbound webhook with the action <span class="mono">${kind.action}</span> creates one for each call it accepts. Create one on the <a href="${BASE}/inbound">Inbound webhooks</a> page.</p></div>`;
  }
  return html`<table class="table">
  <caption class="visually-hidden">${title}, newest first</caption>
  <thead><tr><th scope="col">Time</th><th scope="col">Unit</th>${kind.fields.map((f) => html`<th scope="col">${FIELD_LABELS[f.name] ?? f.name}</th>`)}<th scope="col">Other fields</th><th scope="col">From</th></tr></thead>
  <tbody>${records.map(
    (r) => html`<tr>
    <td data-label="Time">${when(r.time)}</td>
    <td data-label="Unit">${r.deviceId ? html`<a href="${deviceUrl(r.deviceId)}">${devices.get(r.deviceId) ?? r.deviceId}</a>` : html`<span class="muted">–</span>`}</td>
    ${kind.fields.map((f) => html`<td data-label="${FIELD_LABELS[f.name] ?? f.name}" class="wrap">${value(f, r.values[f.name])}</td>`)}
    <td data-label="Other fields">${extra(r)}</td>
    <td data-label="From">${webhooks.has(r.webhookId) ? html`<a href="${BASE}/inbound/${encodeURIComponent(r.webhookId)}">${webhooks.get(r.webhookId)}</a>` : html`<span class="muted">a removed webhook</span>`}</td>
  </tr>`,
  )}</tbody>
</table>`;
}

function deviceFilter(kind: RecordKind, devices: Device[], chosen: string): Html {
  return html`<form method="get" action="${BASE}/records/${kind.path}" class="form form-inline">
  ${field({ name: 'deviceId', label: 'Unit', type: 'select', choices: [{ value: '', label: 'All units' }, ...devices.map((d) => ({ value: d.id, label: d.name }))] }, chosen, undefined)}
  <button type="submit" class="button">Show</button>
</form>`;
}

export function recordsPages(ctx: TrackerContext): Router {
  const router = Router();

  router.get('/records', (_req, res) => res.redirect(303, `${BASE}/records/${RECORD_KINDS[0]!.path}`));

  router.get('/records/:kind', async (req, res) => {
    const session = sessionOf(res);
    const kind = RECORD_KINDS.find((k) => k.path === req.params.kind);
    if (!kind) throw new ApiError('not_found', 'There is no such kind of record.');
    const parsed = Query.safeParse(req.query);
    if (!parsed.success) throw new ApiError('bad_request', 'The filter could not be read. Choose a unit from the list.');
    const deviceId = parsed.data.deviceId || null;
    if (deviceId) await ownDevice(ctx, res, deviceId);
    const cursor = decodeCreatedCursor(parsed.data.cursor);
    const rows = await listRecords(ctx.db, kind, { accountId: session.accountId, deviceId, from: null, to: null, before: cursor && { time: cursor.createdAt, id: cursor.id }, limit: PAGE_SIZE + 1 });
    const { items, next } = paged(
      rows,
      PAGE_SIZE,
      (r) => ({ t: r.time.toISOString(), id: r.id }),
      (c) => `${BASE}/records/${kind.path}?${new URLSearchParams({ ...(deviceId ? { deviceId } : {}), cursor: c }).toString()}`,
    );
    const devices = await listDevices(ctx.db, session.accountId);
    const webhooks = new Map((await listInboundWebhooks(ctx.db, session.accountId)).map((w) => [w.id, w.name]));

    res.send(
      page(
        { title: TITLES[kind.path]!, session, section: 'records' },
        html`<nav aria-label="Kinds of record" class="tabs"><ul>${RECORD_KINDS.map(
          (k) => html`<li><a href="${BASE}/records/${k.path}"${k === kind ? html` aria-current="page"` : ''}>${TITLES[k.path]!}</a></li>`,
        )}</ul></nav>
${deviceFilter(kind, devices, deviceId ?? '')}
${recordTable(kind, items, new Map(devices.map((d) => [d.id, d.name])), webhooks, deviceId !== null)}
${next ? html`<p><a class="button button-secondary" href="${next}">Older ${TITLES[kind.path]!.toLowerCase()}</a></p>` : ''}`,
      ),
    );
  });

  return router;
}
