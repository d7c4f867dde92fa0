// Inbound webhooks: the account's list with each one's latest call, creating one with an action
// (its URL and secret are shown once, on the page that answers the form), and a webhook's page
// with its recent calls and remove.
import { Router, type Response } from 'express';
import { z } from 'zod';
import { INBOUND_ACTIONS, type InboundAction } from '../../../shared/inbound.js';
import { requiredText } from '../../../shared/validation.js';
import type { TrackerContext } from '../../context.js';
import { listCalls, type InboundCall } from '../../inbound/calls.js';
import { createInboundWebhook, deleteInboundWebhook, findInboundWebhook, inboundUrl, listInboundWebhooks, type InboundWebhook } from '../../inbound/repository.js';
import type { SignInSession } from '../../users/sign-in-sessions.js';
import { errorSummary, errorsOf, field, formValues, type FormErrors } from '../forms.js';
import { html, type Html } from '../html.js';
import { BASE, csrfInput, notice, page, when } from '../layout.js';
import { ownRecord, sessionOf } from '../security.js';
import { shownOnce } from '../shown-once.js';
import { recordsUrl } from './records.js';

/** The webhook's page shows this many of its newest calls. */
const RECENT_CALLS = 50;
/** A logged body is shown up to this many characters of its JSON. */
const BODY_SHOWN = 2000;

export const ACTION_LABELS: Record<InboundAction, string> = {
  create_incident: 'Create an incident',
  create_expense: 'Record an expense',
  create_work_order: 'Create a work order',
  create_unit_note: 'Add a note to a unit',
  log_only: 'Only log the call',
};

const NewWebhook = z.object({
  name: requiredText('webhook name', 200),
  action: z.enum(INBOUND_ACTIONS, { error: 'choose what a call does' }),
});

const webhookUrl = (id: string) => `${BASE}/inbound/${encodeURIComponent(id)}`;

function webhookTable(ctx: TrackerContext, webhooks: (InboundWebhook & { lastCallAt: Date | null })[]): Html {
  if (webhooks.length === 0) {
    return html`<div class="empty"><p><strong>No inbound webhooks yet.</strong></p><p>Create one below for each outside system (an ERP, a CRM, an automation tool) that should create incidents, expenses, work orders or unit notes in this account.</p></div>`;
  }
  return html`<table class="table">
  <caption class="visually-hidden">Inbound webhooks of this account, oldest first</caption>
  <thead><tr><th scope="col">Name</th><th scope="col">Action</th><th scope="col">URL</th><th scope="col">Created</th><th scope="col">Latest call</th></tr></thead>
  <tbody>${webhooks.map(
    (w) => html`<tr>
    <th scope="row" data-label="Name"><a href="${webhookUrl(w.id)}">${w.name}</a></th>
    <td data-label="Action">${ACTION_LABELS[w.action]} <span class="mono muted">${w.action}</span></td>
    <td data-label="URL" class="mono wrap">${inboundUrl(ctx.config.PUBLIC_BASE_URL, w.id)}</td>
    <td data-label="Created">${when(w.createdAt)}</td>
    <td data-label="Latest call">${when(w.lastCallAt)}</td>
  </tr>`,
  )}</tbody>
</table>`;
}

function createForm(session: SignInSession, values: Record<string, string>, errors: FormErrors): Html {
  return html`<section aria-labelledby="new-inbound" class="panel">
  <h2 id="new-inbound">Create an inbound webhook</h2>
  ${errorSummary(errors)}
  <form method="post" action="${BASE}/inbound" class="form" novalidate>
    ${csrfInput(session)}
    ${field({ name: 'name', label: 'Name', required: true, maxlength: 200, autocomplete: 'off', hint: 'Which system calls it, e.g. “ERP expenses”.' }, values.name, errors.name)}
    ${field(
      {
        name: 'action',
        label: 'What a call does',
        type: 'select',
        required: true,
        choices: INBOUND_ACTIONS.map((a) => ({ value: a, label: `${ACTION_LABELS[a]} (${a})` })),
        hint: 'Each call creates one record of this kind; “only log” keeps the call’s body in the call log.',
      },
      values.action,
      errors.action,
    )}
    <button type="submit" class="button">Create webhook</button>
  </form>
</section>`;
}

async function listPage(ctx: TrackerContext, res: Response, message: Html | null, form: { values: Record<string, string>; errors: FormErrors }): Promise<string> {
  const session = sessionOf(res);
  const webhooks = await listInboundWebhooks(ctx.db, session.accountId);
  return page({ title: 'Inbound webhooks', session, section: 'inbound', notice: message }, html`${webhookTable(ctx, webhooks)}${createForm(session, form.values, form.errors)}`);
}

function createdNotice(w: InboundWebhook, url: string, secret: string): Html {
  const call = new URL(url);
  call.searchParams.set('secret', secret);
  return shownOnce(
    html`Inbound webhook “${w.name}” created`,
    [
      { id: 'new-inbound-url', label: 'URL', copy: 'Copy URL', value: url, rows: 3 },
      { id: 'new-inbound-secret', label: 'Secret', copy: 'Copy secret', value: secret },
      { id: 'new-inbound-call', label: 'Address to call', copy: 'Copy address to call', value: call.toString(), rows: 4 },
    ],
    html`The secret is stored only as a hash: if it is lost, remove the webhook and create another. Callers POST JSON to the address to call (the URL with <span class="mono">?secret=</span>).`,
  );
}

function result(c: InboundCall): Html {
  const ok = c.status < 300;
  return html`<span class="badge ${ok ? 'badge-online' : 'badge-critical'}">${c.status}</span>${c.replayed ? html` <span class="badge">replayed</span>` : ''}`;
}

function details(c: InboundCall): Html {
  const parts: Html[] = [];
  if (c.error) parts.push(html`<p>${c.error}</p>`);
  if (c.recordId) parts.push(html`<p>Created <span class="mono">${c.recordId}</span></p>`);
  if (c.idempotencyKey) parts.push(html`<p class="muted">Idempotency-Key <span class="mono">${c.idempotencyKey}</span></p>`);
  if (c.body !== null && c.body !== undefined) {
    const json = JSON.stringify(c.body, null, 2);
    parts.push(html`<details><summary>Body</summary><pre class="mono">${json.length > BODY_SHOWN ? `${json.slice(0, BODY_SHOWN)}…` : json}</pre></details>`);
  }
  return parts.length ? html`${parts}` : html`<span class="muted">–</span>`;
}

function callTable(calls: InboundCall[]): Html {
  if (calls.length === 0) {
    return html`<div class="empty"><p><strong>No calls yet.</strong></p><p>Every call this webhook receives, accepted or refused, appears here.</p></div>`;
  }
  return html`<table class="table">
  <caption class="visually-hidden">The webhook’s ${calls.length} most recent calls, newest first</caption>
  <thead><tr><th scope="col">Received</th><th scope="col">Result</th><th scope="col">Details</th><th scope="col">From</th><th scope="col">Size</th></tr></thead>
  <tbody>${calls.map(
    (c) => html`<tr>
    <td data-label="Received">${when(c.receivedAt)}</td>
    <td data-label="Result">${result(c)}</td>
    <td data-label="Details" class="wrap">${details(c)}</td>
    <td data-label="From" class="mono">${c.clientAddress ?? html`<span class="muted">–</span>`}</td>
    <td data-label="Size">${c.bodyBytes === null ? html`<span class="muted">–</span>` : `${c.bodyBytes} bytes`}</td>
  </tr>`,
  )}</tbody>
</table>`;
}

async function ownWebhook(ctx: TrackerContext, res: Response, id: string): Promise<InboundWebhook> {
  return ownRecord(res, await findInboundWebhook(ctx.db, id), 'There is no such inbound webhook in this account.');
}

export function inboundPages(ctx: TrackerContext): Router {
  const router = Router();

  router.get('/inbound', async (req, res) => {
    res.send(await listPage(ctx, res, req.query.removed === '1' ? notice('success', 'Inbound webhook removed. Its URL no longer works; the records it created stay.') : null, { values: {}, errors: {} }));
  });

  router.post('/inbound', async (req, res) => {
    const values = formValues(req.body);
    const parsed = NewWebhook.safeParse(values);
    if (!parsed.success) return res.status(400).send(await listPage(ctx, res, null, { values, errors: errorsOf(parsed.error) }));
    const session = sessionOf(res);
    const { webhook, secret } = await createInboundWebhook(ctx.db, { accountId: session.accountId, ...parsed.data });
    req.log.info({ webhookId: webhook.id, accountId: session.accountId, userId: session.userId }, 'inbound webhook created in the dashboard');
    res.status(201).send(await listPage(ctx, res, createdNotice(webhook, inboundUrl(ctx.config.PUBLIC_BASE_URL, webhook.id), secret), { values: {}, errors: {} }));
  });

  router.get('/inbound/:id', async (req, res) => {
    const session = sessionOf(res);
    const w = await ownWebhook(ctx, res, req.params.id);
    const calls = await listCalls(ctx.db, w.id, RECENT_CALLS);
    const records = w.action === 'log_only' ? null : recordsUrl(w.action);
    res.send(
      page(
        { title: w.name, session, section: 'inbound', before: html`<p class="back"><a href="${BASE}/inbound">← All inbound webhooks</a></p>` },
        html`<dl class="facts">
  <div><dt>Action</dt><dd>${ACTION_LABELS[w.action]} <span class="mono muted">${w.action}</span></dd></div>
  <div><dt>URL</dt><dd class="mono">${inboundUrl(ctx.config.PUBLIC_BASE_URL, w.id)}</dd></div>
  <div><dt>Created</dt><dd>${when(w.createdAt)}</dd></div>
</dl>
${records ? html`<p><a class="button button-secondary" href="${records}">Records of this kind</a></p>` : ''}
<section aria-labelledby="calls">
  <h2 id="calls">Recent calls</h2>
  ${callTable(calls)}
</section>
<section aria-labelledby="remove-inbound" class="panel">
  <h2 id="remove-inbound">Remove</h2>
  <p>Its URL stops working at once. The records it created stay.</p>
  <form method="post" action="${webhookUrl(w.id)}/remove" data-confirm="${`Remove the inbound webhook “${w.name}”? Calls to its URL are refused from now on.`}">
    ${csrfInput(session)}<button type="submit" class="button-danger">Remove webhook<span class="visually-hidden"> ${w.name}</span></button>
  </form>
</section>`,
      ),
    );
  });

  router.post('/inbound/:id/remove', async (req, res) => {
    const session = sessionOf(res);
    const w = await ownWebhook(ctx, res, req.params.id);
    await deleteInboundWebhook(ctx.db, w.id);
    req.log.info({ webhookId: w.id, accountId: session.accountId, userId: session.userId }, 'inbound webhook removed in the dashboard');
    res.redirect(303, `${BASE}/inbound?removed=1`);
  });

  return router;
}
