// Alerts of the account, newest first, filtered by status (open by default, as in the API), 50 to
// a page with a link to older ones; an open alert is acknowledged with its button.
import { Router } from 'express';
import { z } from 'zod';
import { ApiError } from '../../../shared/errors.js';
import { acknowledgeAlert, listAlerts, type Alert, type AlertStatus } from '../../alerts/repository.js';
import type { TrackerContext } from '../../context.js';
import { listDevices } from '../../devices/repository.js';
import { decodeNumberedCursor } from '../../storage/paging.js';
import type { SignInSession } from '../../users/sign-in-sessions.js';
import { html, type Html } from '../html.js';
import { BASE, csrfInput, notice, page, when } from '../layout.js';
import { paged } from '../page-links.js';
import { sessionOf } from '../security.js';
import { deviceUrl } from './devices.js';

const PAGE_SIZE = 50;
const STATUSES: readonly AlertStatus[] = ['open', 'acknowledged'];
const Query = z.object({ status: z.enum(['open', 'acknowledged']).default('open'), cursor: z.string().max(200).optional() });
/** Alert ids are integers; anything else names no alert. */
const ALERT_ID = /^[1-9][0-9]{0,14}$/;

function acknowledgeButton(session: SignInSession, a: Alert, device: string): Html {
  return html`<form method="post" action="${BASE}/alerts/${a.id}/acknowledge">${csrfInput(session)}<button type="submit" class="button-secondary">Acknowledge<span class="visually-hidden"> ${a.type} alert of ${device}</span></button></form>`;
}

function alertTable(session: SignInSession, alerts: Alert[], names: Map<string, string>, status: AlertStatus): Html {
  if (alerts.length === 0) {
    return html`<div class="empty"><p><strong>No ${status} alerts.</strong></p><p>${
      status === 'open' ? 'Alerts appear here when a device reports an event that needs attention.' : 'Acknowledged alerts are listed here.'
    }</p></div>`;
  }
  const open = status === 'open';
  return html`<table class="table">
  <caption class="visually-hidden">${open ? 'Open' : 'Acknowledged'} alerts, newest first</caption>
  <thead><tr><th scope="col">Time</th><th scope="col">Device</th><th scope="col">Type</th><th scope="col">Severity</th><th scope="col">Message</th><th scope="col">${
    open ? html`<span class="visually-hidden">Actions</span>` : 'Acknowledged'
  }</th></tr></thead>
  <tbody>${alerts.map((a) => {
    // Alerts about the account itself (a disabled webhook) have no device.
    const device = a.deviceId ? (names.get(a.deviceId) ?? a.deviceId) : 'the account';
    return html`<tr>
    <td data-label="Time">${when(a.createdAt)}</td>
    <td data-label="Device">${a.deviceId ? html`<a href="${deviceUrl(a.deviceId)}">${device}</a>` : 'Account'}</td>
    <td data-label="Type" class="mono">${a.type}</td>
    <td data-label="Severity"><span class="badge badge-${a.severity}">${a.severity}</span></td>
    <td data-label="Message">${a.message}</td>
    <td data-label="${open ? '' : 'Acknowledged'}">${open ? acknowledgeButton(session, a, device) : when(a.acknowledgedAt)}</td>
  </tr>`;
  })}</tbody>
</table>`;
}

export function alertsPage(ctx: TrackerContext): Router {
  const router = Router();

  router.get('/alerts', async (req, res) => {
    const session = sessionOf(res);
    const parsed = Query.safeParse(req.query);
    if (!parsed.success) throw new ApiError('bad_request', 'Choose the status "open" or "acknowledged".');
    const { status, cursor } = parsed.data;
    const rows = await listAlerts(ctx.db, { accountId: session.accountId, status, since: null, before: decodeNumberedCursor(cursor), limit: PAGE_SIZE + 1 });
    const { items, next } = paged(rows, PAGE_SIZE, (a) => ({ t: a.createdAt.toISOString(), id: a.id }), (c) => `${BASE}/alerts?${new URLSearchParams({ status, cursor: c }).toString()}`);
    const names = new Map((await listDevices(ctx.db, session.accountId)).map((d) => [d.id, d.name]));
    const message = req.query.acknowledged === '1' ? notice('success', html`Alert acknowledged. It is listed under <a href="${BASE}/alerts?status=acknowledged">Acknowledged</a>.`) : null;

    res.send(
      page(
        { title: 'Alerts', session, section: 'alerts', notice: message },
        html`<nav aria-label="Alert status" class="tabs"><ul>${STATUSES.map(
          (s) => html`<li><a href="${BASE}/alerts?status=${s}"${s === status ? html` aria-current="page"` : ''}>${s === 'open' ? 'Open' : 'Acknowledged'}</a></li>`,
        )}</ul></nav>
${alertTable(session, items, names, status)}
${next ? html`<p><a class="button button-secondary" href="${next}">Older alerts</a></p>` : ''}`,
      ),
    );
  });

  router.post('/alerts/:id/acknowledge', async (req, res) => {
    const session = sessionOf(res);
    const alert = ALERT_ID.test(req.params.id) ? await acknowledgeAlert(ctx.db, session.accountId, Number(req.params.id)) : null;
    if (!alert) throw new ApiError('not_found', 'There is no such alert in this account.');
    req.log.info({ alertId: alert.id, accountId: session.accountId, userId: session.userId }, 'alert acknowledged in the dashboard');
    res.redirect(303, `${BASE}/alerts?acknowledged=1`);
  });

  return router;
}
