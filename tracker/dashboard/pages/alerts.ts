// Alerts of the account, newest first, filtered by status (open by default, as in the API), 50 to
// a page with a link to older ones.
import { Router } from 'express';
import { z } from 'zod';
import { ApiError } from '../../../shared/errors.js';
import { listAlerts, type Alert, type AlertStatus } from '../../alerts/repository.js';
import { decodeCursor, encodeCursor, isIsoTime } from '../../api/paging.js';
import type { TrackerContext } from '../../context.js';
import { listDevices } from '../../devices/repository.js';
import { html, type Html } from '../html.js';
import { BASE, page, when } from '../layout.js';
import { sessionOf } from '../security.js';
import { deviceUrl } from './devices.js';

const PAGE_SIZE = 50;
const STATUSES: readonly AlertStatus[] = ['open', 'acknowledged'];
const Query = z.object({ status: z.enum(['open', 'acknowledged']).default('open'), cursor: z.string().max(200).optional() });

function alertTable(alerts: Alert[], names: Map<string, string>, status: AlertStatus): Html {
  if (alerts.length === 0) {
    return html`<div class="empty"><p><strong>No ${status} alerts.</strong></p><p>${
      status === 'open' ? 'Alerts appear here when a device reports an event that needs attention.' : 'Acknowledged alerts are listed here.'
    }</p></div>`;
  }
  return html`<table class="table">
  <caption class="visually-hidden">${status === 'open' ? 'Open' : 'Acknowledged'} alerts, newest first</caption>
  <thead><tr><th scope="col">Time</th><th scope="col">Device</th><th scope="col">Type</th><th scope="col">Severity</th><th scope="col">Message</th></tr></thead>
  <tbody>${alerts.map(
    (a) => html`<tr>
    <td data-label="Time">${when(a.createdAt)}</td>
    <td data-label="Device">${a.deviceId ? html`<a href="${deviceUrl(a.deviceId)}">${names.get(a.deviceId) ?? a.deviceId}</a>` : 'Account'}</td>
    <td data-label="Type" class="mono">${a.type}</td>
    <td data-label="Severity"><span class="badge badge-${a.severity}">${a.severity}</span></td>
    <td data-label="Message">${a.message}</td>
  </tr>`,
  )}</tbody>
</table>`;
}

export function alertsPage(ctx: TrackerContext): Router {
  const router = Router();

  router.get('/alerts', async (req, res) => {
    const session = sessionOf(res);
    const parsed = Query.safeParse(req.query);
    if (!parsed.success) throw new ApiError('bad_request', 'Choose the status "open" or "acknowledged".');
    const { status, cursor } = parsed.data;
    const before = cursor ? (({ t, id }) => ({ createdAt: new Date(t), id }))(decodeCursor(cursor, (v): v is { t: string; id: number } => isIsoTime(v.t) && Number.isInteger(v.id))) : null;
    const rows = await listAlerts(ctx.db, { accountId: session.accountId, status, since: null, before, limit: PAGE_SIZE + 1 });
    const alerts = rows.slice(0, PAGE_SIZE);
    const last = alerts.at(-1);
    const older = rows.length > PAGE_SIZE && last ? `${BASE}/alerts?${new URLSearchParams({ status, cursor: encodeCursor({ t: last.createdAt.toISOString(), id: last.id }) }).toString()}` : null;
    const names = new Map((await listDevices(ctx.db, session.accountId)).map((d) => [d.id, d.name]));

    res.send(
      page(
        { title: 'Alerts', session, section: 'alerts' },
        html`<nav aria-label="Alert status" class="tabs"><ul>${STATUSES.map(
          (s) => html`<li><a href="${BASE}/alerts?status=${s}"${s === status ? html` aria-current="page"` : ''}>${s === 'open' ? 'Open' : 'Acknowledged'}</a></li>`,
        )}</ul></nav>
${alertTable(alerts, names, status)}
${older ? html`<p><a class="button button-secondary" href="${older}">Older alerts</a></p>` : ''}`,
      ),
    );
  });

  return router;
}
