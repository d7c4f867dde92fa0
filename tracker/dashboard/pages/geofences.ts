// Geofences: the account's list over a map of them all, adding one (drawn on the map, or typed: a
// circle, or a polygon as "lat,lng" lines or pasted as GeoJSON), and a geofence's page with its
// shape on the map to reshape, the edit form and delete. A geofence a rule uses cannot be
// deleted; the page names the rules.
import { Router, type Response } from 'express';
import { ApiError } from '../../../shared/errors.js';
import type { TrackerContext } from '../../context.js';
import { listRules, MAX_RULES_PER_ACCOUNT } from '../../custom-rules/repository.js';
import { createGeofence, deleteGeofence, findGeofence, listGeofences, replaceGeofence, type Geofence } from '../../geofences/repository.js';
import type { Shape } from '../../geofences/shape.js';
import { decodeCreatedCursor, createdCursorOf } from '../../storage/paging.js';
import type { SignInSession } from '../../users/sign-in-sessions.js';
import { errorSummary, field, formValues, type FormErrors } from '../forms.js';
import { geofenceFormValues, MAX_POINTS_TEXT, parseGeofenceForm } from '../geofence-form.js';
import { shapeSvg } from '../geofence-svg.js';
import { html, type Html } from '../html.js';
import { BASE, csrfInput, notice, page, when } from '../layout.js';
import { paged } from '../page-links.js';
import { sessionOf } from '../security.js';
import { GEOFENCE_FORM_ID, GEOFENCE_MAP_ASSETS, geofenceMap } from './geofence-map.js';

const PAGE_SIZE = 100;
const geofenceUrl = (id: string) => `${BASE}/geofences/${encodeURIComponent(id)}`;

interface FormState {
  values: Record<string, string>;
  errors: FormErrors;
}

const EMPTY_FORM: FormState = { values: { type: 'circle' }, errors: {} };

function describeShape(shape: Shape): string {
  if (shape.type === 'circle') return `Circle of ${shape.radius} m around ${shape.center.lat}, ${shape.center.lng}`;
  return `Polygon of ${shape.points.length - 1} corners`;
}

function geofenceTable(geofences: Geofence[]): Html {
  if (geofences.length === 0) {
    return html`<div class="empty"><p><strong>No geofences yet.</strong></p><p>Add one below: a circle around a depot or a polygon around a site. Units entering and leaving them raise geofence events, and rules can apply only inside them.</p></div>`;
  }
  return html`<table class="table">
  <caption class="visually-hidden">Geofences of this account, oldest first</caption>
  <thead><tr><th scope="col">Name</th><th scope="col">Shape</th><th scope="col">Description</th><th scope="col">Changed</th></tr></thead>
  <tbody>${geofences.map(
    (g) => html`<tr>
    <th scope="row" data-label="Name"><a href="${geofenceUrl(g.id)}">${g.name}</a></th>
    <td data-label="Shape">${describeShape(g.shape)}</td>
    <td data-label="Description">${g.description || html`<span class="muted">–</span>`}</td>
    <td data-label="Changed">${when(g.updatedAt)}</td>
  </tr>`,
  )}</tbody>
</table>`;
}

function geofenceForm(session: SignInSession, action: string, submit: string, { values, errors }: FormState): Html {
  const radio = (value: 'circle' | 'polygon', label: string, hint: string) =>
    html`<div class="check"><input type="radio" id="shape-${value}" name="type" value="${value}"${values.type === value ? html` checked` : ''} aria-describedby="shape-${value}-help">
      <label for="shape-${value}">${label}</label> <span class="hint" id="shape-${value}-help">${hint}</span></div>`;
  return html`${errorSummary(errors)}
  <form method="post" action="${action}" class="form" id="${GEOFENCE_FORM_ID}" novalidate>
    ${csrfInput(session)}
    ${field({ name: 'name', label: 'Name', required: true, maxlength: 100, autocomplete: 'off', hint: 'As events and webhooks name it, e.g. “Main depot”.' }, values.name, errors.name)}
    ${field({ name: 'description', label: 'Description', maxlength: 500, autocomplete: 'off' }, values.description, errors.description)}
    <fieldset class="${errors.type ? 'field-error' : ''}" id="field-type" data-choice="type"${errors.type ? html` aria-describedby="field-type-error"` : ''}>
      <legend>Shape</legend>
      ${errors.type ? html`<p class="error-message" id="field-type-error"><span class="visually-hidden">Error: </span>${errors.type}</p>` : ''}
      ${radio('circle', 'Circle', 'A centre and a radius in metres.')}
      ${radio('polygon', 'Polygon', 'Its corners, as “latitude,longitude” lines or as GeoJSON.')}
    </fieldset>
    <fieldset data-choice-part="type=circle">
      <legend>Circle <span class="muted">(for a circle)</span></legend>
      ${field({ name: 'lat', label: 'Latitude of the centre', required: true, inputmode: 'decimal', autocomplete: 'off', maxlength: 30, hint: 'Decimal degrees, e.g. 52.520008' }, values.lat, errors.lat)}
      ${field({ name: 'lng', label: 'Longitude of the centre', required: true, inputmode: 'decimal', autocomplete: 'off', maxlength: 30, hint: 'Decimal degrees, e.g. 13.404954' }, values.lng, errors.lng)}
      ${field({ name: 'radius', label: 'Radius (metres)', required: true, inputmode: 'decimal', autocomplete: 'off', maxlength: 30 }, values.radius, errors.radius)}
    </fieldset>
    <fieldset data-choice-part="type=polygon">
      <legend>Polygon <span class="muted">(for a polygon)</span></legend>
      ${field(
        {
          name: 'points',
          label: 'Corners',
          type: 'textarea',
          required: true,
          rows: 8,
          maxlength: MAX_POINTS_TEXT,
          hint: 'One “latitude,longitude” per line, at least 3, in order around the area (it is closed for you); or paste a GeoJSON Polygon or a Feature holding one.',
        },
        values.points,
        errors.points,
      )}
    </fieldset>
    <button type="submit" class="button">${submit}</button>
  </form>`;
}

async function listPage(ctx: TrackerContext, res: Response, cursor: string | undefined, form: FormState, message: Html | null): Promise<string> {
  const session = sessionOf(res);
  const rows = await listGeofences(ctx.db, session.accountId, decodeCreatedCursor(cursor), PAGE_SIZE + 1);
  const { items, next } = paged(rows, PAGE_SIZE, createdCursorOf, (c) => `${BASE}/geofences?cursor=${encodeURIComponent(c)}`);
  return page(
    { title: 'Geofences', session, section: 'geofences', notice: message, assets: GEOFENCE_MAP_ASSETS },
    html`${await geofenceMap(ctx, session.accountId, null)}
${geofenceTable(items)}
${next ? html`<p><a class="button button-secondary" href="${next}">More geofences</a></p>` : ''}
<section aria-labelledby="add-geofence" class="panel">
  <h2 id="add-geofence">Add a geofence</h2>
  ${geofenceForm(session, `${BASE}/geofences`, 'Add geofence', form)}
</section>`,
  );
}

async function geofencePage(ctx: TrackerContext, session: SignInSession, g: Geofence, form: FormState, message: Html | null): Promise<string> {
  return page(
    { title: g.name, session, section: 'geofences', notice: message, assets: GEOFENCE_MAP_ASSETS, before: html`<p class="back"><a href="${BASE}/geofences">← All geofences</a></p>` },
    html`<figure class="track-figure">
  ${await geofenceMap(ctx, session.accountId, g)}
  ${shapeSvg(g.shape, `${g.name}: ${describeShape(g.shape)}`)}
  <figcaption><span>${describeShape(g.shape)}</span><span>Changed ${when(g.updatedAt)}</span><span class="mono">${g.id}</span></figcaption>
</figure>
<section aria-labelledby="edit-geofence" class="panel">
  <h2 id="edit-geofence">Edit</h2>
  ${geofenceForm(session, geofenceUrl(g.id), 'Save changes', form)}
</section>
<section aria-labelledby="delete-geofence" class="panel">
  <h2 id="delete-geofence">Delete</h2>
  <p>Units inside it raise no more geofence events. A geofence a rule uses cannot be deleted.</p>
  <form method="post" action="${geofenceUrl(g.id)}/delete" data-confirm="${`Delete the geofence “${g.name}”?`}">
    ${csrfInput(session)}<button type="submit" class="button-danger">Delete geofence<span class="visually-hidden"> ${g.name}</span></button>
  </form>
</section>`,
  );
}

async function ownGeofence(ctx: TrackerContext, res: Response, id: string): Promise<Geofence> {
  const geofence = await findGeofence(ctx.db, sessionOf(res).accountId, id);
  if (!geofence) throw new ApiError('not_found', 'There is no such geofence in this account.');
  return geofence;
}

const isConflict = (err: unknown): err is ApiError => err instanceof ApiError && err.code === 'conflict';

function inUseNotice(users: readonly { id: string; name: string }[]): Html {
  const named = users.map((r, i) => html`${i > 0 ? ', ' : ''}<strong>${r.name}</strong> <span class="mono">(${r.id})</span>`);
  return notice(
    'error',
    html`<h2>The geofence was not deleted</h2>
<p>${users.length === 0 ? 'A rule has just been set to use it.' : html`${users.length === 1 ? 'A rule uses it' : 'Rules use it'}: ${named}.`}
Change the rule to use another geofence, or delete it, through the API (<span class="mono">/api/public/v1/rules</span>) first.</p>`,
  );
}

export function geofencesPages(ctx: TrackerContext): Router {
  const router = Router();

  router.get('/geofences', async (req, res) => {
    const message = req.query.deleted === '1' ? notice('success', 'Geofence deleted.') : null;
    res.send(await listPage(ctx, res, typeof req.query.cursor === 'string' ? req.query.cursor : undefined, EMPTY_FORM, message));
  });

  router.post('/geofences', async (req, res) => {
    const values = formValues(req.body);
    const parsed = parseGeofenceForm(values);
    if (!parsed.ok) return res.status(400).send(await listPage(ctx, res, undefined, { values, errors: parsed.errors }, null));
    try {
      const g = await createGeofence(ctx.db, sessionOf(res).accountId, parsed.input);
      res.redirect(303, `${geofenceUrl(g.id)}?created=1`);
    } catch (err) {
      // The account has as many geofences as it may.
      if (!isConflict(err)) throw err;
      res.status(409).send(await listPage(ctx, res, undefined, { values, errors: {} }, notice('error', `The geofence was not added: ${err.message}.`)));
    }
  });

  router.get('/geofences/:id', async (req, res) => {
    const g = await ownGeofence(ctx, res, req.params.id);
    const message = req.query.created === '1' ? notice('success', 'Geofence added.') : req.query.saved === '1' ? notice('success', 'Changes saved.') : null;
    res.send(await geofencePage(ctx, sessionOf(res), g, { values: geofenceFormValues(g), errors: {} }, message));
  });

  router.post('/geofences/:id', async (req, res) => {
    const g = await ownGeofence(ctx, res, req.params.id);
    const values = formValues(req.body);
    const parsed = parseGeofenceForm(values);
    if (!parsed.ok) return res.status(400).send(await geofencePage(ctx, sessionOf(res), g, { values, errors: parsed.errors }, null));
    if (!(await replaceGeofence(ctx.db, sessionOf(res).accountId, g.id, parsed.input))) throw new ApiError('not_found', 'There is no such geofence in this account.');
    res.redirect(303, `${geofenceUrl(g.id)}?saved=1`);
  });

  router.post('/geofences/:id/delete', async (req, res) => {
    const session = sessionOf(res);
    const g = await ownGeofence(ctx, res, req.params.id);
    try {
      if (!(await deleteGeofence(ctx.db, session.accountId, g.id))) throw new ApiError('not_found', 'There is no such geofence in this account.');
    } catch (err) {
      if (!isConflict(err)) throw err;
      const users = (await listRules(ctx.db, session.accountId, null, MAX_RULES_PER_ACCOUNT)).filter((r) => r.geofenceId === g.id);
      const message = inUseNotice(users);
      return res.status(409).send(await geofencePage(ctx, session, g, { values: geofenceFormValues(g), errors: {} }, message));
    }
    req.log.info({ geofenceId: g.id, accountId: session.accountId, userId: session.userId }, 'geofence deleted in the dashboard');
    res.redirect(303, `${BASE}/geofences?deleted=1`);
  });

  return router;
}
