// The device page's commands panel: the commands the unit's protocol takes, a form to send one
// (through the same queue and safety rules as the API, recorded with the signed-in user as its
// sender), and the unit's recent commands with their status (and until when it waits, when it
// ended or why it failed), the unit's reply and who sent them.
import { z } from 'zod';
import { CUSTOM_MAX_CHARS, customHexField, customTextField, INTERVAL_SECONDS, intervalField } from '../../commands/attributes.js';
import { listCommands, type Command } from '../../commands/repository.js';
import type { Device } from '../../devices/repository.js';
import { commandTypes, encodeCommand } from '../../protocols/registry.js';
import type { CommandParams, CommandType } from '../../protocols/types.js';
import type { Queryable } from '../../storage/db.js';
import { userEmails } from '../../users/repository.js';
import type { SignInSession } from '../../users/sign-in-sessions.js';
import { checkedBy, errorSummary, errorsOf, field, formNumber, type FormErrors } from '../forms.js';
import { html, type Html } from '../html.js';
import { csrfInput, when } from '../layout.js';

/** How many of the newest commands the panel shows; the API pages through all of them. */
const SHOWN = 10;

export const COMMAND_LABELS: Record<CommandType, string> = {
  locate: 'Locate: report the position now',
  engineStop: 'Engine stop: cut the engine',
  engineResume: 'Engine resume: let the engine start again',
  reboot: 'Reboot the unit',
  setInterval: 'Set the reporting interval',
  custom: "Custom: the protocol's own command",
};

/** The engine stop's safety settings, said next to its confirmation. */
export interface EngineStopRules {
  maxSpeedKmh: number;
  ttlSeconds: number;
}

/** The form as the user filled it in, and what was wrong with it. */
export interface CommandFormState {
  values: Record<string, string>;
  errors: FormErrors;
}

export const EMPTY_COMMAND_FORM: CommandFormState = { values: {}, errors: {} };

const attributesText = (c: Command) => Object.entries(c.attributes).map(([k, v]) => `${k}=${String(v)}`).join(' ');

/** Whether the unit's custom commands take raw bytes (binary protocols) rather than only text. */
function takesHex(device: Device): boolean {
  try {
    return encodeCommand(device.protocol!, 'custom', 1, { hex: '00', identity: device.imei }) !== null;
  } catch {
    return false;
  }
}

/** An optional payload field: blank (after `clean`) is not given, anything else must pass the API's check. */
const payload = (label: string, check: z.ZodType<string>, clean = (v: string) => v) =>
  z
    .string()
    .optional()
    .transform((raw, ctx) => {
      const value = raw === undefined ? '' : clean(raw);
      return value === '' ? undefined : checkedBy(label, check)(value, ctx);
    });

function commandForm(types: readonly CommandType[]) {
  return z
    .object({
      type: z.string().optional().refine((t) => types.includes(t as CommandType), 'Choose one of the commands this unit takes'),
      seconds: formNumber('The interval', intervalField),
      text: payload('The command text', customTextField),
      // Pasted bytes often come spaced ("7e 81 05"): the spaces are not part of them.
      hex: payload('The command bytes', customHexField, (v) => v.replace(/\s+/g, '')),
      confirm: z.string().optional(),
    })
    .superRefine((f, ctx) => {
      const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
      // A value filled in for another type is refused rather than dropped: the user meant to send something else.
      if (f.type === 'setInterval' && f.seconds == null) issue('seconds', 'Enter the interval in seconds');
      if (f.type !== 'setInterval' && f.seconds != null) issue('seconds', 'The interval is sent only with "Set the reporting interval": choose it, or clear the field');
      if (f.type === 'custom' && f.text === undefined && f.hex === undefined) issue('text', 'Enter the command text (or its bytes as hex)');
      if (f.type === 'custom' && f.text !== undefined && f.hex !== undefined) issue('text', 'Enter the command as text or as hex, not both');
      if (f.type !== 'custom' && f.text !== undefined) issue('text', 'Command text is sent only with a custom command: choose it, or clear the field');
      if (f.type !== 'custom' && f.hex !== undefined) issue('hex', 'Command bytes are sent only with a custom command: choose it, or clear the field');
      if (f.type === 'engineStop' && f.confirm !== 'yes') issue('confirm', 'Tick the box to confirm the engine stop');
    });
}

/** A command read from the form, and the field a refusal of it is shown at (custom's payload, else the type). */
export interface CommandFromForm {
  ok: true;
  type: CommandType;
  /** The command's attributes, as the API takes them. */
  params: CommandParams;
  field: 'type' | 'text' | 'hex';
}

/** The command the form asks for, or what is wrong with it. */
export function readCommandForm(device: Device, values: Record<string, string>): CommandFromForm | { ok: false; errors: FormErrors } {
  const parsed = commandForm(device.protocol ? commandTypes(device.protocol) : []).safeParse(values);
  if (!parsed.success) return { ok: false, errors: errorsOf(parsed.error) };
  const { type, seconds, text, hex } = parsed.data;
  if (type === 'setInterval') return { ok: true, type, params: { seconds: seconds! }, field: 'type' };
  if (type === 'custom') return text !== undefined ? { ok: true, type, params: { text }, field: 'text' } : { ok: true, type, params: { hex: hex! }, field: 'hex' };
  return { ok: true, type: type as CommandType, params: {}, field: 'type' };
}

function sendForm(session: SignInSession, device: Device, action: string, form: CommandFormState, rules: EngineStopRules): Html {
  if (!device.protocol) {
    return html`<p class="muted">This unit has not connected yet, so the commands it takes are not known. Commands can be sent once it has connected.</p>`;
  }
  const types = commandTypes(device.protocol);
  if (types.length === 0) return html`<p class="muted">The ${device.protocol} protocol takes no commands.</p>`;
  const { values, errors } = form;
  const confirmError = errors.confirm;
  return html`<h3 id="send-command">Send a command</h3>
  ${errorSummary(errors)}
  <form method="post" action="${action}" class="form" novalidate>
    ${csrfInput(session)}
    ${field({ name: 'type', label: 'Command', type: 'select', choices: types.map((t) => ({ value: t, label: COMMAND_LABELS[t] })) }, values.type, errors.type)}
    ${types.includes('setInterval')
      ? field({ name: 'seconds', label: 'Interval (seconds)', type: 'number', inputmode: 'numeric', min: INTERVAL_SECONDS.min, max: INTERVAL_SECONDS.max, step: 1, hint: `For "Set the reporting interval": ${INTERVAL_SECONDS.min} to ${INTERVAL_SECONDS.max} seconds.` }, values.seconds, errors.seconds)
      : html``}
    ${types.includes('custom')
      ? html`${field({ name: 'text', label: 'Command text', maxlength: CUSTOM_MAX_CHARS, autocomplete: 'off', hint: `For a custom command: sent as written, printable ASCII, at most ${CUSTOM_MAX_CHARS} characters.` }, values.text, errors.text)}${
          takesHex(device)
            ? field({ name: 'hex', label: 'Command bytes (hex)', type: 'textarea', rows: 3, maxlength: CUSTOM_MAX_CHARS * 3, hint: `Or, for a custom command, its bytes as hex digits (spaces allowed), at most ${CUSTOM_MAX_CHARS} bytes.` }, values.hex, errors.hex)
            : html``
        }`
      : html``}
    ${types.includes('engineStop')
      ? html`<div class="field${confirmError ? ' field-error' : ''}">
      ${confirmError ? html`<p class="error-message" id="field-confirm-error"><span class="visually-hidden">Error: </span>${confirmError}</p>` : html``}
      <div class="check"><input type="checkbox" id="field-confirm" name="confirm" value="yes"${confirmError ? html` aria-invalid="true" aria-describedby="field-confirm-error field-confirm-hint"` : html` aria-describedby="field-confirm-hint"`}>
      <label for="field-confirm">I confirm the engine stop</label>
      <p class="hint" id="field-confirm-hint">Needed for an engine stop. It is refused while the unit last reported more than ${rules.maxSpeedKmh} km/h, and dropped if the unit does not get it within ${rules.ttlSeconds} seconds.</p></div>
    </div>`
      : html``}
    <button type="submit" class="button">Send command</button>
  </form>`;
}

/** What a status means for the command, beside its badge: until when it waits, when it ended, why it failed. */
function statusDetail(c: Command): Html {
  switch (c.status) {
    case 'queued':
      return html`waiting for the unit until ${when(c.expiresAt)}`;
    case 'sent':
      return html`sent ${when(c.sentAt)}, awaiting the unit's answer`;
    case 'delivered':
      return html`${when(c.deliveredAt)}`;
    case 'failed':
      return html`${c.error ?? 'refused by the unit'}`;
    case 'expired':
      return html`not sent before ${when(c.expiresAt)}`;
  }
}

/** The command types of the unit's protocol, by name, or why they are not known. */
function supported(device: Device): Html {
  if (!device.protocol) return html``;
  const types = commandTypes(device.protocol);
  if (types.length === 0) return html``;
  return html`<p id="command-types">This unit (${device.protocol} protocol) takes: ${types.map((t, i) => html`${i > 0 ? ', ' : ''}<strong>${COMMAND_LABELS[t].split(':')[0]}</strong>`)}.</p>`;
}

function sender(c: Command, emails: Map<string, string>): Html {
  if (c.userId) return html`${emails.get(c.userId) ?? c.userId} <span class="muted">(dashboard)</span>`;
  if (c.tokenId) return html`<span class="mono">${c.tokenId}</span> <span class="muted">(API token)</span>`;
  return html`<span class="muted">unknown</span>`;
}

export async function commandsPanel(db: Queryable, session: SignInSession, device: Device, action: string, form: CommandFormState, rules: EngineStopRules): Promise<Html> {
  const commands = await listCommands(db, { accountId: device.accountId, deviceId: device.id, before: null, limit: SHOWN });
  const emails = await userEmails(db, device.accountId, [...new Set(commands.flatMap((c) => (c.userId ? [c.userId] : [])))]);
  return html`<section aria-labelledby="device-commands" class="panel">
  <h2 id="device-commands">Commands</h2>
  ${supported(device)}
  ${sendForm(session, device, action, form, rules)}
  <h3>Recent commands</h3>
  ${commands.length === 0
    ? html`<p class="muted">No commands sent to this unit yet.</p>`
    : html`<table class="table">
  <caption class="visually-hidden">The unit's ${SHOWN} newest commands, newest first</caption>
  <thead><tr><th scope="col">Asked</th><th scope="col">Command</th><th scope="col">Status</th><th scope="col">Reply</th><th scope="col">Sent by</th></tr></thead>
  <tbody>${commands.map(
    (c) => html`<tr>
    <td data-label="Asked">${when(c.createdAt)}</td>
    <td data-label="Command"><span class="mono">${c.type}</span> ${attributesText(c)}</td>
    <td data-label="Status"><span class="badge badge-command-${c.status}">${c.status}</span> <span class="status-detail">${statusDetail(c)}</span></td>
    <td data-label="Reply">${c.reply ?? html`<span class="muted">–</span>`}</td>
    <td data-label="Sent by">${sender(c, emails)}</td>
  </tr>`,
  )}</tbody>
</table>`}
</section>`;
}
