// Devices: the account's list with status, last position and last update; adding a device by its
// identifier; a device's page with its details, its latest telemetry, the edit form, its OsmAnd
// report key, and its commands (send one, see the recent ones).
import { Router, type Response } from 'express';
import { z } from 'zod';
import { ApiError } from '../../../shared/errors.js';
import type { TrackerContext } from '../../context.js';
import { deviceName, imei, plate } from '../../devices/fields.js';
import { engineStopTtlSeconds, queueCommand } from '../../commands/queue.js';
import { clearReportKey, reportKeyHash, setReportKey } from '../../devices/report-key.js';
import { addDevice, findDevice, listDevices, type Device } from '../../devices/repository.js';
import { latestTelemetry, type LatestTelemetry } from '../../positions/latest-telemetry.js';
import type { CommandType } from '../../protocols/types.js';
import type { SignInSession } from '../../users/sign-in-sessions.js';
import { errorSummary, errorsOf, field, formValues, type FieldSpec, type FormErrors } from '../forms.js';
import { html, type Html } from '../html.js';
import { BASE, csrfInput, notice, page, when } from '../layout.js';
import { sessionOf } from '../security.js';
import { shownOnce } from '../shown-once.js';
import { commandsPanel, COMMAND_LABELS, EMPTY_COMMAND_FORM, readCommandForm, type CommandFormState } from './device-commands.js';
import { DEVICE_SECTIONS } from './device-sections.js';
import { FLEET_ASSETS, fleetView } from './fleet.js';
import { telemetryPanel } from './device-telemetry.js';

const NewDevice = z.object({ imei, name: deviceName, plate: plate.default('') });

export const deviceUrl = (id: string) => `${BASE}/devices/${encodeURIComponent(id)}`;

function statusBadge(status: Device['status']): Html {
  return html`<span class="badge badge-${status}">${status === 'online' ? 'Online' : 'Offline'}</span>`;
}

function position(d: Device): Html {
  if (d.lastLat === null || d.lastLng === null) return html`<span class="muted">no position yet</span>`;
  return html`<span class="coords">${d.lastLat.toFixed(5)}, ${d.lastLng.toFixed(5)}</span>`;
}

function deviceTable(devices: Device[]): Html {
  if (devices.length === 0) {
    return html`<div class="empty"><p><strong>No devices yet.</strong></p><p>Add your first device below with its identifier (IMEI). It appears online as soon as it connects to the tracker.</p></div>`;
  }
  return html`<table class="table">
  <caption class="visually-hidden">Devices of this account</caption>
  <thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Last position</th><th scope="col">Speed</th><th scope="col">Last update</th><th scope="col">Identifier</th><th scope="col">Plate</th></tr></thead>
  <tbody>${devices.map(
    (d) => html`<tr>
    <th scope="row" data-label="Name"><a href="${deviceUrl(d.id)}">${d.name}</a></th>
    <td data-label="Status">${statusBadge(d.status)}</td>
    <td data-label="Last position">${position(d)}</td>
    <td data-label="Speed">${d.lastUpdate ? html`${Math.round(d.lastSpeed)} km/h` : html`<span class="muted">–</span>`}</td>
    <td data-label="Last update">${when(d.lastUpdate)}</td>
    <td data-label="Identifier" class="mono">${d.imei}</td>
    <td data-label="Plate">${d.plate || html`<span class="muted">–</span>`}</td>
  </tr>`,
  )}</tbody>
</table>`;
}

function addForm(session: SignInSession, values: Record<string, string>, errors: FormErrors): Html {
  return html`<section aria-labelledby="add-device" class="panel">
  <h2 id="add-device">Add a device</h2>
  ${errorSummary(errors)}
  <form method="post" action="${BASE}/devices" class="form" novalidate>
    ${csrfInput(session)}
    ${field({ name: 'imei', label: 'Identifier (IMEI)', required: true, inputmode: 'numeric', maxlength: 20, autocomplete: 'off', hint: '5 to 20 digits, as the device reports it (an IMEI has 15).' }, values.imei, errors.imei)}
    ${field({ name: 'name', label: 'Name', required: true, maxlength: 200 }, values.name, errors.name)}
    ${field({ name: 'plate', label: 'Plate', maxlength: 32, autocomplete: 'off' }, values.plate, errors.plate)}
    <button type="submit" class="button">Add device</button>
  </form>
</section>`;
}

async function listPage(ctx: TrackerContext, res: Response, form: { values: Record<string, string>; errors: FormErrors }, message: Html | null): Promise<string> {
  const session = sessionOf(res);
  const devices = await listDevices(ctx.db, session.accountId);
  const map = devices.length > 0 ? await fleetView(ctx, session.accountId) : html``;
  return page({ title: 'Devices', session, section: 'devices', notice: message, assets: devices.length > 0 ? FLEET_ASSETS : [] }, html`${map}${deviceTable(devices)}${addForm(session, form.values, form.errors)}`);
}

/** The account's device or a 404 page (another account's device is never acknowledged). */
export async function ownDevice(ctx: TrackerContext, res: Response, id: string): Promise<Device> {
  const device = await findDevice(ctx.db, sessionOf(res).accountId, id);
  if (!device) throw new ApiError('not_found', 'There is no such device in this account.');
  return device;
}

interface ShownSection {
  legend: string;
  fields: readonly FieldSpec[];
}

/** The edit form's sections with their fields, as this account's device shows them. */
const shownSections = (ctx: TrackerContext, device: Device): Promise<ShownSection[]> =>
  Promise.all(DEVICE_SECTIONS.map(async (s) => ({ legend: s.legend, fields: await s.fields(ctx.db, device) })));

/** Set, replace or remove the key an OsmAnd phone must send; the key itself is never shown again. */
function reportKeyPanel(session: SignInSession, device: Device, keySet: boolean): Html {
  return html`<section aria-labelledby="report-key" class="panel">
  <h2 id="report-key">Report key (OsmAnd)</h2>
  <p>${keySet
    ? html`A key is set: this unit's OsmAnd reports are accepted only with it (parameter <code>key</code>).`
    : html`No key is set: an OsmAnd report naming this unit's identifier is accepted. Set a key and enter it in the phone app so that knowing the identifier is not enough.`}</p>
  <form method="post" action="${deviceUrl(device.id)}/report-key" class="form">
    ${csrfInput(session)}
    <button type="submit" name="action" value="set" class="button">${keySet ? 'Replace the key' : 'Set a key'}</button>
    ${keySet ? html`<button type="submit" name="action" value="clear" class="button button-secondary">Remove the key</button>` : html``}
  </form>
</section>`;
}

interface PageParts {
  sections: ShownSection[];
  latest: LatestTelemetry;
  keySet: boolean;
  commands: Html;
}

/** What the device page shows besides the device row and the form's values. */
async function partsOf(ctx: TrackerContext, session: SignInSession, device: Device, commandForm: CommandFormState = EMPTY_COMMAND_FORM): Promise<PageParts> {
  const [sections, latest, keyHash, commands] = await Promise.all([
    shownSections(ctx, device),
    latestTelemetry(ctx.db, device.id),
    reportKeyHash(ctx.db, device.id),
    commandsPanel(ctx.db, session, device, `${deviceUrl(device.id)}/commands`, commandForm, {
      maxSpeedKmh: ctx.config.ENGINE_STOP_MAX_SPEED_KMH,
      ttlSeconds: engineStopTtlSeconds(ctx.config),
    }),
  ]);
  return { sections, latest, keySet: keyHash !== null, commands };
}

function devicePage(session: SignInSession, device: Device, parts: PageParts, values: Record<string, string>, errors: FormErrors, message: Html | null): string {
  return page(
    { title: device.name, session, section: 'devices', notice: message, before: html`<p class="back"><a href="${BASE}/devices">← All devices</a></p>` },
    html`<dl class="facts">
  <div><dt>Status</dt><dd>${statusBadge(device.status)}</dd></div>
  <div><dt>Last position</dt><dd>${position(device)}</dd></div>
  <div><dt>Last update</dt><dd>${when(device.lastUpdate)}</dd></div>
  <div><dt>Speed</dt><dd>${device.lastUpdate ? html`${Math.round(device.lastSpeed)} km/h` : html`<span class="muted">–</span>`}</dd></div>
  <div><dt>Identifier</dt><dd class="mono">${device.imei}</dd></div>
  <div><dt>Protocol</dt><dd>${device.protocol ?? html`<span class="muted">not connected yet</span>`}</dd></div>
  <div><dt>Device id (API)</dt><dd class="mono">${device.id}</dd></div>
</dl>
<p><a class="button button-secondary" href="${deviceUrl(device.id)}/track">View track</a></p>
${telemetryPanel(parts.latest)}
<section aria-labelledby="edit-device" class="panel">
  <h2 id="edit-device">Edit</h2>
  ${errorSummary(errors)}
  <form method="post" action="${deviceUrl(device.id)}" class="form" novalidate>
    ${csrfInput(session)}
    ${parts.sections.map((s) => html`<fieldset><legend>${s.legend}</legend>${s.fields.map((f) => field(f, values[f.name], errors[f.name]))}</fieldset>`)}
    <button type="submit" class="button">Save changes</button>
  </form>
</section>
${reportKeyPanel(session, device, parts.keySet)}
${parts.commands}`,
  );
}

async function currentValues(ctx: TrackerContext, device: Device): Promise<Record<string, string>> {
  const parts = await Promise.all(DEVICE_SECTIONS.map((s) => s.values(ctx.db, device)));
  return Object.assign({}, ...parts) as Record<string, string>;
}

export function devicesPages(ctx: TrackerContext): Router {
  const router = Router();

  router.get('/devices', async (req, res) => {
    const added = typeof req.query.added === 'string' ? await findDevice(ctx.db, sessionOf(res).accountId, req.query.added) : null;
    res.send(await listPage(ctx, res, { values: {}, errors: {} }, added ? notice('success', html`Device <strong>${added.name}</strong> added.`) : null));
  });

  router.post('/devices', async (req, res) => {
    const values = formValues(req.body);
    const parsed = NewDevice.safeParse(values);
    if (!parsed.success) return res.status(400).send(await listPage(ctx, res, { values, errors: errorsOf(parsed.error) }, null));
    try {
      const device = await addDevice(ctx.db, { accountId: sessionOf(res).accountId, ...parsed.data });
      res.redirect(303, `${BASE}/devices?added=${encodeURIComponent(device.id)}`);
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== 'conflict') throw err;
      res.status(409).send(await listPage(ctx, res, { values, errors: { imei: err.message } }, null));
    }
  });

  router.get('/devices/:id', async (req, res) => {
    const device = await ownDevice(ctx, res, req.params.id);
    const saved = { '1': 'Changes saved.', 'key-removed': 'Report key removed: OsmAnd reports for this unit are accepted without one.' }[String(req.query.saved)];
    const sent = typeof req.query.sent === 'string' && Object.hasOwn(COMMAND_LABELS, req.query.sent) ? COMMAND_LABELS[req.query.sent as CommandType] : null;
    const message = saved ? notice('success', saved) : sent ? notice('success', html`Command queued: <strong>${sent}</strong>. Its status is in the list below.`) : null;
    res.send(devicePage(sessionOf(res), device, await partsOf(ctx, sessionOf(res), device), await currentValues(ctx, device), {}, message));
  });

  router.post('/devices/:id', async (req, res) => {
    const device = await ownDevice(ctx, res, req.params.id);
    const values = formValues(req.body);
    const results = DEVICE_SECTIONS.map((s) => s.parse(values));
    const errors: FormErrors = Object.assign({}, ...results.map((r) => (r.ok ? {} : errorsOf(r.error))));
    if (Object.keys(errors).length > 0) {
      return res.status(400).send(devicePage(sessionOf(res), device, await partsOf(ctx, sessionOf(res), device), values, errors, null));
    }
    await ctx.db.transaction(async (tx) => {
      for (const r of results) if (r.ok) await r.save(tx, device);
    });
    res.redirect(303, `${deviceUrl(device.id)}?saved=1`);
  });

  // A command from the device page: the API's rules (the protocol's types, engine stop's speed
  // limit and short life), recorded with the signed-in user as its sender.
  router.post('/devices/:id/commands', async (req, res) => {
    const session = sessionOf(res);
    const device = await ownDevice(ctx, res, req.params.id);
    const values = formValues(req.body);
    const refuse = async (status: number, errors: FormErrors) =>
      res.status(status).send(devicePage(session, device, await partsOf(ctx, session, device, { values, errors }), await currentValues(ctx, device), {}, null));
    const form = readCommandForm(device, values);
    if (!form.ok) return refuse(400, form.errors);
    try {
      await queueCommand(ctx, device, { userId: session.userId }, form.type, form.params);
    } catch (err) {
      if (!(err instanceof ApiError) || (err.code !== 'conflict' && err.code !== 'bad_request')) throw err;
      return refuse(err.status, { [form.field]: err.message });
    }
    req.log.info({ deviceId: device.id, accountId: session.accountId, userId: session.userId, type: form.type }, 'command sent from the dashboard');
    res.redirect(303, `${deviceUrl(device.id)}?sent=${form.type}#device-commands`);
  });

  router.post('/devices/:id/report-key', async (req, res) => {
    const device = await ownDevice(ctx, res, req.params.id);
    const { action } = formValues(req.body);
    if (action === 'clear') {
      await clearReportKey(ctx.db, device.id);
      return res.redirect(303, `${deviceUrl(device.id)}?saved=key-removed`);
    }
    if (action !== 'set') throw new ApiError('bad_request', 'Choose to set or remove the key.');
    const key = (await setReportKey(ctx.db, device.id))!;
    const message = shownOnce(
      'Report key set',
      [{ id: 'new-report-key', label: 'Report key', copy: 'Copy key', value: key }],
      html`Enter it in the phone app as the <code>key</code> parameter of the server address (for example <code>?key=…</code>); from now on reports without it are not accepted.`,
    );
    res.send(devicePage(sessionOf(res), device, await partsOf(ctx, sessionOf(res), device), await currentValues(ctx, device), {}, message));
  });

  return router;
}
