// Drivers: the account's list with the unit each drives, adding one, and a driver's page with the
// edit form and delete. A driver is put on a unit from the unit's page.
import { Router, type Response } from 'express';
import { z } from 'zod';
import { ApiError } from '../../../shared/errors.js';
import type { TrackerContext } from '../../context.js';
import { listDevices } from '../../devices/repository.js';
import { createDriver, deleteDriver, findDriver, listDrivers, replaceDriver, type Driver } from '../../drivers/repository.js';
import { DriverInput } from '../../drivers/schemas.js';
import { createdCursorOf, decodeCreatedCursor } from '../../storage/paging.js';
import type { SignInSession } from '../../users/sign-in-sessions.js';
import { checkedBy, errorSummary, errorsOf, field, formText, formValues, type FormErrors } from '../forms.js';
import { html, type Html } from '../html.js';
import { BASE, csrfInput, notice, page, when } from '../layout.js';
import { paged } from '../page-links.js';
import { sessionOf } from '../security.js';
import { deviceUrl } from './devices.js';

const PAGE_SIZE = 100;
const driverUrl = (id: string) => `${BASE}/drivers/${encodeURIComponent(id)}`;

const DriverForm = z.object({
  name: formText('name', DriverInput.shape.name),
  phone: formText('phone', DriverInput.shape.phone),
  licenseNumber: formText('licence number', DriverInput.shape.licenseNumber),
  uniqueId: z
    .string()
    .optional()
    .transform((v) => (v?.trim() ? v : null))
    .transform(checkedBy('identification key', DriverInput.shape.uniqueId)),
});

interface FormState {
  values: Record<string, string>;
  errors: FormErrors;
}

const EMPTY_FORM: FormState = { values: {}, errors: {} };

function unitLink(d: Driver, names: Map<string, string>): Html {
  return d.deviceId ? html`<a href="${deviceUrl(d.deviceId)}">${names.get(d.deviceId) ?? d.deviceId}</a>` : html`<span class="muted">none</span>`;
}

const dash = (v: string | null) => v || html`<span class="muted">–</span>`;

function driverTable(drivers: Driver[], names: Map<string, string>): Html {
  if (drivers.length === 0) {
    return html`<div class="empty"><p><strong>No drivers yet.</strong></p><p>Add your drivers below, then put each on a unit from the unit’s page. Events and webhooks then name who was driving.</p></div>`;
  }
  return html`<table class="table">
  <caption class="visually-hidden">Drivers of this account, oldest first</caption>
  <thead><tr><th scope="col">Name</th><th scope="col">Unit</th><th scope="col">Phone</th><th scope="col">Licence</th><th scope="col">Identification key</th></tr></thead>
  <tbody>${drivers.map(
    (d) => html`<tr>
    <th scope="row" data-label="Name"><a href="${driverUrl(d.id)}">${d.name}</a></th>
    <td data-label="Unit">${unitLink(d, names)}</td>
    <td data-label="Phone">${dash(d.phone)}</td>
    <td data-label="Licence">${dash(d.licenseNumber)}</td>
    <td data-label="Identification key" class="mono">${dash(d.uniqueId)}</td>
  </tr>`,
  )}</tbody>
</table>`;
}

function driverForm(session: SignInSession, action: string, submit: string, { values, errors }: FormState): Html {
  return html`${errorSummary(errors)}
  <form method="post" action="${action}" class="form" novalidate>
    ${csrfInput(session)}
    ${field({ name: 'name', label: 'Name', required: true, maxlength: 100, autocomplete: 'off' }, values.name, errors.name)}
    ${field({ name: 'phone', label: 'Phone', maxlength: 32, autocomplete: 'off', inputmode: 'text' }, values.phone, errors.phone)}
    ${field({ name: 'licenseNumber', label: 'Licence number', maxlength: 64, autocomplete: 'off' }, values.licenseNumber, errors.licenseNumber)}
    ${field(
      { name: 'uniqueId', label: 'Identification key', maxlength: 64, autocomplete: 'off', hint: 'The iButton or RFID card the vehicle reads, if any. Each key belongs to one driver of the account.' },
      values.uniqueId,
      errors.uniqueId,
    )}
    <button type="submit" class="button">${submit}</button>
  </form>`;
}

const deviceNames = async (ctx: TrackerContext, accountId: string) => new Map((await listDevices(ctx.db, accountId)).map((d) => [d.id, d.name]));

async function listPage(ctx: TrackerContext, res: Response, cursor: string | undefined, form: FormState, message: Html | null): Promise<string> {
  const session = sessionOf(res);
  const rows = await listDrivers(ctx.db, session.accountId, decodeCreatedCursor(cursor), PAGE_SIZE + 1);
  const { items, next } = paged(rows, PAGE_SIZE, createdCursorOf, (c) => `${BASE}/drivers?cursor=${encodeURIComponent(c)}`);
  return page(
    { title: 'Drivers', session, section: 'drivers', notice: message },
    html`${driverTable(items, await deviceNames(ctx, session.accountId))}
${next ? html`<p><a class="button button-secondary" href="${next}">More drivers</a></p>` : ''}
<section aria-labelledby="add-driver" class="panel">
  <h2 id="add-driver">Add a driver</h2>
  ${driverForm(session, `${BASE}/drivers`, 'Add driver', form)}
</section>`,
  );
}

async function driverPage(ctx: TrackerContext, session: SignInSession, d: Driver, form: FormState, message: Html | null): Promise<string> {
  return page(
    { title: d.name, session, section: 'drivers', notice: message, before: html`<p class="back"><a href="${BASE}/drivers">← All drivers</a></p>` },
    html`<dl class="facts">
  <div><dt>Unit</dt><dd>${unitLink(d, await deviceNames(ctx, session.accountId))}</dd></div>
  <div><dt>Added</dt><dd>${when(d.createdAt)}</dd></div>
  <div><dt>Driver id (API)</dt><dd class="mono">${d.id}</dd></div>
</dl>
<p class="muted">To put this driver on a unit, choose them on the unit’s page.</p>
<section aria-labelledby="edit-driver" class="panel">
  <h2 id="edit-driver">Edit</h2>
  ${driverForm(session, driverUrl(d.id), 'Save changes', form)}
</section>
<section aria-labelledby="delete-driver" class="panel">
  <h2 id="delete-driver">Delete</h2>
  <p>The driver is taken off their unit.</p>
  <form method="post" action="${driverUrl(d.id)}/delete" data-confirm="${`Delete the driver “${d.name}”?`}">
    ${csrfInput(session)}<button type="submit" class="button-danger">Delete driver<span class="visually-hidden"> ${d.name}</span></button>
  </form>
</section>`,
  );
}

async function ownDriver(ctx: TrackerContext, res: Response, id: string): Promise<Driver> {
  const driver = await findDriver(ctx.db, sessionOf(res).accountId, id);
  if (!driver) throw new ApiError('not_found', 'There is no such driver in this account.');
  return driver;
}

const formOf = (d: Driver): FormState => ({ values: { name: d.name, phone: d.phone, licenseNumber: d.licenseNumber, uniqueId: d.uniqueId ?? '' }, errors: {} });

/** An identification key another driver has, or the account's limit of drivers. */
const refusal = (err: unknown): Html | null => (err instanceof ApiError && err.code === 'conflict' ? notice('error', `The driver was not saved: ${err.message}.`) : null);

export function driversPages(ctx: TrackerContext): Router {
  const router = Router();

  router.get('/drivers', async (req, res) => {
    const session = sessionOf(res);
    const added = typeof req.query.added === 'string' ? await findDriver(ctx.db, session.accountId, req.query.added) : null;
    const message = added ? notice('success', html`Driver <strong>${added.name}</strong> added.`) : req.query.deleted === '1' ? notice('success', 'Driver deleted.') : null;
    res.send(await listPage(ctx, res, typeof req.query.cursor === 'string' ? req.query.cursor : undefined, EMPTY_FORM, message));
  });

  router.post('/drivers', async (req, res) => {
    const values = formValues(req.body);
    const parsed = DriverForm.safeParse(values);
    if (!parsed.success) return res.status(400).send(await listPage(ctx, res, undefined, { values, errors: errorsOf(parsed.error) }, null));
    try {
      const d = await createDriver(ctx.db, sessionOf(res).accountId, parsed.data);
      res.redirect(303, `${BASE}/drivers?added=${encodeURIComponent(d.id)}`);
    } catch (err) {
      const message = refusal(err);
      if (!message) throw err;
      res.status(409).send(await listPage(ctx, res, undefined, { values, errors: {} }, message));
    }
  });

  router.get('/drivers/:id', async (req, res) => {
    const d = await ownDriver(ctx, res, req.params.id);
    res.send(await driverPage(ctx, sessionOf(res), d, formOf(d), req.query.saved === '1' ? notice('success', 'Changes saved.') : null));
  });

  router.post('/drivers/:id', async (req, res) => {
    const session = sessionOf(res);
    const d = await ownDriver(ctx, res, req.params.id);
    const values = formValues(req.body);
    const parsed = DriverForm.safeParse(values);
    if (!parsed.success) return res.status(400).send(await driverPage(ctx, session, d, { values, errors: errorsOf(parsed.error) }, null));
    try {
      if (!(await replaceDriver(ctx.db, session.accountId, d.id, parsed.data))) throw new ApiError('not_found', 'There is no such driver in this account.');
    } catch (err) {
      const message = refusal(err);
      if (!message) throw err;
      return res.status(409).send(await driverPage(ctx, session, d, { values, errors: {} }, message));
    }
    res.redirect(303, `${driverUrl(d.id)}?saved=1`);
  });

  router.post('/drivers/:id/delete', async (req, res) => {
    const session = sessionOf(res);
    const d = await ownDriver(ctx, res, req.params.id);
    if (!(await deleteDriver(ctx.db, session.accountId, d.id))) throw new ApiError('not_found', 'There is no such driver in this account.');
    req.log.info({ driverId: d.id, accountId: session.accountId, userId: session.userId }, 'driver deleted in the dashboard');
    res.redirect(303, `${BASE}/drivers?deleted=1`);
  });

  return router;
}
