// The notice that shows newly made secrets (API tokens, webhook URLs and secrets) on the page that
// answers the form, the only time they are ever shown: each in a read-only box with a copy button
// (dashboard.js reveals it) and a warning that it cannot be shown again.
import { html, type Html } from './html.js';
import { notice } from './layout.js';

export interface ShownSecret {
  /** The element id of its box. */
  id: string;
  label: string;
  /** The copy button's text, e.g. "Copy token". */
  copy: string;
  value: string;
  rows?: number;
}

export function shownOnce(title: Html | string, secrets: readonly ShownSecret[], advice: Html | string): Html {
  return notice(
    'success',
    html`<h2>${title}</h2>
<p><strong>Copy ${secrets.length === 1 ? 'it' : 'them'} now: ${secrets.length === 1 ? 'it is' : 'they are'} shown only this once.</strong> ${advice}</p>
${secrets.map(
  (s) => html`<div class="secret"><label for="${s.id}">${s.label}</label>
<textarea id="${s.id}" class="mono" rows="${s.rows ?? 2}" readonly spellcheck="false">${s.value}</textarea>
<button type="button" class="button button-secondary" data-copy="${s.id}" hidden>${s.copy}</button>
<span class="copy-status" role="status"></span></div>`,
)}`,
  );
}
