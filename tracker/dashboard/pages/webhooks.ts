// Outbound webhooks: the account's endpoints with their state, adding one (URL, events, format; the
// signing secret is shown once, on the page that answers the form), and an endpoint's page with its
// delivery log, a test event sent on demand, enabling a disabled endpoint again, and remove.
import { Router, type Response } from 'express';
import { z } from 'zod';
import { ApiError } from '../../../shared/errors.js';
import { requiredText } from '../../../shared/validation.js';
import type { TrackerContext } from '../../context.js';
import { EVENT_TYPES, type EventType } from '../../events/types.js';
import type { SignInSession } from '../../users/sign-in-sessions.js';
import { addEndpoint, sendTestMessage, type TestOutcome } from '../../webhooks/actions.js';
import { deliveryCounts, listAttempts, retryFailed, type Attempt } from '../../webhooks/deliveries.js';
import { enableEndpoint, findEndpoint, listEndpoints, removeEndpoint, type Endpoint } from '../../webhooks/endpoints.js';
import { bodyFormat, FORMATS, type Format } from '../../webhooks/formats/index.js';
import { MAX_URL_LENGTH } from '../../webhooks/url.js';
import { errorSummary, errorsOf, field, type FormErrors } from '../forms.js';
import { html, type Html } from '../html.js';
import { BASE, csrfInput, notice, page, when } from '../layout.js';
import { ownRecord, sessionOf } from '../security.js';
import { shownOnce } from '../shown-once.js';

/** The endpoint's page shows this many of its latest attempts. */
const LOG_SIZE = 50;
/** A test event waits this long for the answer, so the page answers before the gateway's 10 s. */
const TEST_TIMEOUT_MS = 8000;
const ALL = '*';

const EVENT_LABELS: Record<EventType, string> = {
  sos: 'SOS alarm',
  speeding: 'Speeding',
  geofence_enter: 'Entering a geofence',
  geofence_exit: 'Leaving a geofence',
  fuel_alert: 'Low fuel',
  fuel_alert_critical: 'Sudden fuel drop',
  device_online: 'Unit online',
  device_offline: 'Unit offline',
  maintenance_due: 'Maintenance due',
  custom_rule_triggered: 'Custom rule triggered',
};

const FORMAT_LABELS: Record<Format, string> = {
  auto: 'Automatic (chosen from the URL)',
  standard: 'Standard JSON',
  slack: 'Slack',
  discord: 'Discord',
  teams: 'Microsoft Teams',
  googlechat: 'Google Chat',
};

const NewEndpoint = z.object({
  url: requiredText('URL', MAX_URL_LENGTH),
  events: z
    .array(z.enum([ALL, ...EVENT_TYPES]), { error: 'choose the events to send, or all events' })
    .min(1, 'choose the events to send, or all events')
    .transform((list) => (list.includes(ALL) ? [ALL] : [...new Set(list)])),
  format: z.enum(FORMATS, { error: 'choose a format from the list' }),
});

interface FormState {
  values: { url?: string; events?: string[]; format?: string };
  errors: FormErrors;
}

const EMPTY_FORM: FormState = { values: { events: [ALL], format: 'auto' }, errors: {} };
const endpointUrl = (id: string) => `${BASE}/webhooks/${encodeURIComponent(id)}`;

function eventsOf(e: Endpoint): Html {
  if (e.events.includes(ALL)) return html`All events`;
  return html`${e.events.map((t) => html`<span class="badge">${t}</span> `)}`;
}

function formatOf(e: Endpoint): string {
  return e.format === 'auto' ? `Automatic (${FORMAT_LABELS[bodyFormat(e.format, e.url)]})` : FORMAT_LABELS[e.format];
}

function statusOf(e: Endpoint): Html {
  if (e.status === 'disabled') return html`<span class="badge badge-critical">Disabled</span>`;
  return e.failingSince ? html`<span class="badge badge-warning">Failing</span>` : html`<span class="badge badge-online">Enabled</span>`;
}

function endpointTable(endpoints: (Endpoint & { pending: number })[]): Html {
  if (endpoints.length === 0) {
    return html`<div class="empty"><p><strong>No webhooks yet.</strong></p><p>Add one below to have this account’s events (SOS, speeding, geofences, fuel, maintenance…) sent to your systems as they happen, or to a Slack, Discord, Microsoft Teams or Google Chat channel.</p></div>`;
  }
  return html`<table class="table">
  <caption class="visually-hidden">Webhooks of this account, oldest first</caption>
  <thead><tr><th scope="col">URL</th><th scope="col">Events</th><th scope="col">Status</th><th scope="col">Waiting</th><th scope="col">Last delivered</th></tr></thead>
  <tbody>${endpoints.map(
    (e) => html`<tr>
    <th scope="row" data-label="URL" class="wrap"><a href="${endpointUrl(e.id)}" class="mono">${e.url}</a></th>
    <td data-label="Events">${eventsOf(e)}</td>
    <td data-label="Status">${statusOf(e)}</td>
    <td data-label="Waiting">${e.pending}</td>
    <td data-label="Last delivered">${when(e.lastSuccessAt)}</td>
  </tr>`,
  )}</tbody>
</table>`;
}

function addForm(session: SignInSession, { values, errors }: FormState): Html {
  const chosen = new Set(values.events ?? []);
  const box = (value: string, label: string, hint: string) =>
    html`<div class="check"><input type="checkbox" id="event-${value === ALL ? 'all' : value}" name="events" value="${value}"${chosen.has(value) ? html` checked` : ''}>
      <label for="event-${value === ALL ? 'all' : value}">${label}</label> <span class="hint mono">${hint}</span></div>`;
  return html`<section aria-labelledby="add-webhook" class="panel">
  <h2 id="add-webhook">Add a webhook</h2>
  ${errorSummary(errors)}
  <form method="post" action="${BASE}/webhooks" class="form" novalidate>
    ${csrfInput(session)}
    ${field(
      { name: 'url', label: 'URL', required: true, maxlength: MAX_URL_LENGTH, autocomplete: 'off', inputmode: 'url', hint: 'An https address of your system, or a Slack, Discord, Microsoft Teams or Google Chat incoming webhook URL.' },
      values.url,
      errors.url,
    )}
    <fieldset class="${errors.events ? 'field-error' : ''}" id="field-events"${errors.events ? html` aria-describedby="field-events-error"` : ''}>
      <legend>Events</legend>
      ${errors.events ? html`<p class="error-message" id="field-events-error"><span class="visually-hidden">Error: </span>${errors.events}</p>` : ''}
      ${box(ALL, 'All events', 'also types added later')}
      ${EVENT_TYPES.map((t) => box(t, EVENT_LABELS[t], t))}
    </fieldset>
    ${field(
      {
        name: 'format',
        label: 'Format',
        type: 'select',
        choices: FORMATS.map((f) => ({ value: f, label: FORMAT_LABELS[f] })),
        hint: 'Automatic sends Slack, Discord, Microsoft Teams and Google Chat URLs messages in their own format, and standard JSON anywhere else.',
      },
      values.format,
      errors.format,
    )}
    <button type="submit" class="button">Add webhook</button>
  </form>
</section>`;
}

async function listPage(ctx: TrackerContext, res: Response, form: FormState, message: Html | null): Promise<string> {
  const session = sessionOf(res);
  const endpoints = await listEndpoints(ctx.db, session.accountId);
  return page({ title: 'Webhooks', session, section: 'webhooks', notice: message }, html`${endpointTable(endpoints)}${addForm(session, form)}`);
}

function attemptResult(a: Attempt): Html {
  const ok = a.error === null && a.statusCode !== null && a.statusCode < 300;
  return html`${a.statusCode !== null ? html`<span class="badge ${ok ? 'badge-online' : 'badge-critical'}">HTTP ${a.statusCode}</span> ` : ''}${a.error ?? ''}`;
}

function attemptTable(attempts: Attempt[]): Html {
  if (attempts.length === 0) {
    return html`<div class="empty"><p><strong>Nothing sent yet.</strong></p><p>Each attempt to deliver an event, and each test event, appears here with the receiver’s answer.</p></div>`;
  }
  return html`<table class="table">
  <caption class="visually-hidden">The ${attempts.length} latest delivery attempts, newest first</caption>
  <thead><tr><th scope="col">Time</th><th scope="col">Event</th><th scope="col">Result</th><th scope="col">Took</th><th scope="col">Next retry</th><th scope="col">webhook-id</th></tr></thead>
  <tbody>${attempts.map(
    (a) => html`<tr>
    <td data-label="Time">${when(a.attemptedAt)}</td>
    <td data-label="Event" class="mono">${a.eventType}</td>
    <td data-label="Result" class="wrap">${attemptResult(a)}</td>
    <td data-label="Took">${a.durationMs} ms</td>
    <td data-label="Next retry">${when(a.nextAttemptAt, '–')}</td>
    <td data-label="webhook-id" class="mono wrap">${a.messageId}</td>
  </tr>`,
  )}</tbody>
</table>`;
}

function testNotice(t: TestOutcome): Html {
  if (t.ok) return notice('success', html`Test event delivered: the receiver answered HTTP ${t.statusCode ?? ''} in ${t.durationMs} ms.`);
  return notice('error', html`<h2>The test event was not delivered</h2><p>${t.statusCode !== null ? `The receiver answered HTTP ${t.statusCode}. ` : ''}${t.error ?? ''}</p>`);
}

/** How far back "retry failed deliveries" reaches, offered as choices (hours). */
const RETRY_WINDOWS = [
  { hours: 1, label: 'the last hour' },
  { hours: 24, label: 'the last 24 hours' },
  { hours: 24 * 7, label: 'the last 7 days' },
  { hours: 24 * 30, label: 'the last 30 days' },
];
const RetryWindow = z.coerce.number().refine((h) => RETRY_WINDOWS.some((w) => w.hours === h));

function retryPanel(session: SignInSession, e: Endpoint, failed: number): Html {
  if (failed === 0) return html``;
  return html`<section aria-labelledby="retry-failed" class="panel">
  <h2 id="retry-failed">Retry failed deliveries</h2>
  <p>${failed} ${failed === 1 ? 'delivery was' : 'deliveries were'} given up after the last retry. Once the receiver answers again, send them again: each is delivered once, with its original webhook-id.</p>
  <form method="post" action="${endpointUrl(e.id)}/retry" class="form">
    ${csrfInput(session)}
    ${field({ name: 'since', label: 'Failed deliveries of events from', type: 'select', choices: RETRY_WINDOWS.map((w) => ({ value: String(w.hours), label: w.label })) }, '24', undefined)}
    <button type="submit" class="button">Retry failed deliveries</button>
  </form>
</section>`;
}

async function endpointPage(ctx: TrackerContext, session: SignInSession, e: Endpoint, message: Html | null): Promise<string> {
  const counts = await deliveryCounts(ctx.db, e.id);
  const attempts = await listAttempts(ctx.db, e.id, LOG_SIZE);
  const disabled =
    e.status === 'disabled'
      ? html`<section aria-labelledby="disabled" class="panel">
  <h2 id="disabled">This webhook is disabled</h2>
  <p>Disabled${e.disabledAt ? html` ${when(e.disabledAt)}` : ''}${e.disabledReason ? ` because ${e.disabledReason}` : ''}. No new events are queued for it; the ${counts.pending} waiting are sent as soon as it is enabled. Fix the receiver (a test event shows whether it answers), then enable it.</p>
  <form method="post" action="${endpointUrl(e.id)}/enable">${csrfInput(session)}<button type="submit" class="button">Enable again</button></form>
</section>`
      : '';
  return page(
    { title: 'Webhook', session, section: 'webhooks', notice: message, before: html`<p class="back"><a href="${BASE}/webhooks">← All webhooks</a></p>` },
    html`<dl class="facts">
  <div><dt>URL</dt><dd class="mono">${e.url}</dd></div>
  <div><dt>Status</dt><dd>${statusOf(e)}${e.failingSince ? html` every attempt failing since ${when(e.failingSince)}` : ''}</dd></div>
  <div><dt>Events</dt><dd>${eventsOf(e)}</dd></div>
  <div><dt>Format</dt><dd>${formatOf(e)}</dd></div>
  <div><dt>Deliveries</dt><dd>${counts.pending} waiting, ${counts.delivered} delivered, ${counts.failed} failed</dd></div>
  <div><dt>Last delivered</dt><dd>${when(e.lastSuccessAt)}</dd></div>
  <div><dt>Added</dt><dd>${when(e.createdAt)}</dd></div>
  <div><dt>Webhook id</dt><dd class="mono">${e.id}</dd></div>
</dl>
${disabled}
${retryPanel(session, e, counts.failed)}
<form method="post" action="${endpointUrl(e.id)}/test" class="actions">${csrfInput(session)}<button type="submit" class="button button-secondary">Send a test event</button></form>
<section aria-labelledby="log">
  <h2 id="log">Delivery log</h2>
  ${attemptTable(attempts)}
</section>
<section aria-labelledby="remove-webhook" class="panel">
  <h2 id="remove-webhook">Remove</h2>
  <p>Events stop being sent to it at once, and the deliveries still waiting are dropped.</p>
  <form method="post" action="${endpointUrl(e.id)}/remove" data-confirm="${`Remove the webhook to ${e.url}? Deliveries still waiting are dropped.`}">
    ${csrfInput(session)}<button type="submit" class="button-danger">Remove webhook</button>
  </form>
</section>`,
  );
}

async function ownEndpoint(ctx: TrackerContext, res: Response, id: string): Promise<Endpoint> {
  return ownRecord(res, await findEndpoint(ctx.db, id), 'There is no such webhook in this account.');
}

export function webhooksPages(ctx: TrackerContext): Router {
  const router = Router();

  router.get('/webhooks', async (req, res) => {
    res.send(await listPage(ctx, res, EMPTY_FORM, req.query.removed === '1' ? notice('success', 'Webhook removed.') : null));
  });

  router.post('/webhooks', async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const values = {
      url: typeof body.url === 'string' ? body.url : undefined,
      events: ([] as unknown[]).concat(body.events ?? []).filter((v): v is string => typeof v === 'string'),
      format: typeof body.format === 'string' ? body.format : undefined,
    };
    const parsed = NewEndpoint.safeParse(values);
    if (!parsed.success) return res.status(400).send(await listPage(ctx, res, { values, errors: errorsOf(parsed.error) }, null));
    const session = sessionOf(res);
    let added: Awaited<ReturnType<typeof addEndpoint>>;
    try {
      added = await addEndpoint(ctx.db, ctx.config, { accountId: session.accountId, ...parsed.data });
    } catch (err) {
      // The URL is one delivery would refuse (not https, a private address…): the check's message.
      if (!(err instanceof ApiError) || err.code !== 'bad_request') throw err;
      return res.status(400).send(await listPage(ctx, res, { values, errors: { url: err.message } }, null));
    }
    req.log.info({ webhookId: added.endpoint.id, accountId: session.accountId, userId: session.userId }, 'webhook added in the dashboard');
    const message = shownOnce(
      'Webhook added',
      [{ id: 'new-webhook-secret', label: 'Signing secret', copy: 'Copy secret', value: added.secret }],
      html`The receiver checks each message’s <span class="mono">webhook-signature</span> with it. If it is lost, remove the webhook and add it again.`,
    );
    res.status(201).send(await listPage(ctx, res, EMPTY_FORM, message));
  });

  router.get('/webhooks/:id', async (req, res) => {
    const e = await ownEndpoint(ctx, res, req.params.id);
    const retried = typeof req.query.retried === 'string' && /^\d{1,9}$/.test(req.query.retried) ? Number(req.query.retried) : null;
    const message =
      retried !== null ? notice('success', `${retried} failed ${retried === 1 ? 'delivery' : 'deliveries'} queued again${req.query.enabled === '1' ? ', and the webhook enabled again' : ''}. They are being sent.`)
      : req.query.enabled === '1' ? notice('success', 'Webhook enabled. Deliveries that were waiting are being sent.')
      : null;
    res.send(await endpointPage(ctx, sessionOf(res), e, message));
  });

  router.post('/webhooks/:id/test', async (req, res) => {
    const session = sessionOf(res);
    const e = await ownEndpoint(ctx, res, req.params.id);
    const outcome = await sendTestMessage(ctx.db, ctx.config, e, TEST_TIMEOUT_MS);
    req.log.info({ webhookId: e.id, accountId: session.accountId, userId: session.userId, ok: outcome.ok, statusCode: outcome.statusCode }, 'webhook test sent from the dashboard');
    res.send(await endpointPage(ctx, session, e, testNotice(outcome)));
  });

  router.post('/webhooks/:id/enable', async (req, res) => {
    const session = sessionOf(res);
    const e = await ownEndpoint(ctx, res, req.params.id);
    if (!(await ctx.db.transaction((tx) => enableEndpoint(tx, e.id)))) throw new ApiError('not_found', 'There is no such webhook in this account.');
    req.log.info({ webhookId: e.id, accountId: session.accountId, userId: session.userId }, 'webhook enabled in the dashboard');
    res.redirect(303, `${endpointUrl(e.id)}?enabled=1`);
  });

  router.post('/webhooks/:id/retry', async (req, res) => {
    const session = sessionOf(res);
    const e = await ownEndpoint(ctx, res, req.params.id);
    const hours = RetryWindow.safeParse((req.body as Record<string, unknown> | undefined)?.since);
    if (!hours.success) throw new ApiError('bad_request', 'Choose how far back to retry from the list.');
    const retried = await retryFailed(ctx.db, e.id, new Date(Date.now() - hours.data * 3_600_000));
    if (!retried) throw new ApiError('not_found', 'There is no such webhook in this account.');
    req.log.info({ webhookId: e.id, accountId: session.accountId, userId: session.userId, ...retried }, 'failed webhook deliveries retried from the dashboard');
    res.redirect(303, `${endpointUrl(e.id)}?retried=${retried.requeued}${retried.enabled ? '&enabled=1' : ''}`);
  });

  router.post('/webhooks/:id/remove', async (req, res) => {
    const session = sessionOf(res);
    const e = await ownEndpoint(ctx, res, req.params.id);
    await removeEndpoint(ctx.db, e.id);
    req.log.info({ webhookId: e.id, accountId: session.accountId, userId: session.userId }, 'webhook removed in the dashboard');
    res.redirect(303, `${BASE}/webhooks?removed=1`);
  });

  return router;
}
