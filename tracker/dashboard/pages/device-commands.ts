// The device page's commands panel: the unit's recent commands with their status, who sent them
// (the token id) and the unit's reply, read-only. Commands are sent through the public API with a
// `commands` token (docs/commands.md).
import { listCommands, type Command } from '../../commands/repository.js';
import type { Device } from '../../devices/repository.js';
import type { Queryable } from '../../storage/db.js';
import { html, type Html } from '../html.js';
import { when } from '../layout.js';

/** How many of the newest commands the panel shows; the API pages through all of them. */
const SHOWN = 10;

const attributesText = (c: Command) => Object.entries(c.attributes).map(([k, v]) => `${k}=${String(v)}`).join(' ');

export async function commandsPanel(db: Queryable, device: Device): Promise<Html> {
  const commands = await listCommands(db, { accountId: device.accountId, deviceId: device.id, before: null, limit: SHOWN });
  return html`<section aria-labelledby="device-commands" class="panel">
  <h2 id="device-commands">Recent commands</h2>
  ${commands.length === 0
    ? html`<p class="muted">No commands sent to this unit yet.</p>`
    : html`<table class="table">
  <caption class="visually-hidden">The unit's ${SHOWN} newest commands, newest first</caption>
  <thead><tr><th scope="col">Asked</th><th scope="col">Command</th><th scope="col">Status</th><th scope="col">Reply</th><th scope="col">Sent by (token id)</th></tr></thead>
  <tbody>${commands.map(
    (c) => html`<tr>
    <td data-label="Asked">${when(c.createdAt)}</td>
    <td data-label="Command"><span class="mono">${c.type}</span> ${attributesText(c)}</td>
    <td data-label="Status">${c.status}${c.error ? html` <span class="muted">(${c.error})</span>` : html``}</td>
    <td data-label="Reply">${c.reply ?? html`<span class="muted">–</span>`}</td>
    <td data-label="Sent by" class="mono">${c.tokenId ?? html`<span class="muted">unknown</span>`}</td>
  </tr>`,
  )}</tbody>
</table>`}
</section>`;
}
