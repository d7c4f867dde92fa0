// Form markup with accessible errors: each field has a label, an optional hint, and its error tied
// to it (aria-describedby, aria-invalid); a summary at the top links to every field in error.
import type { z } from 'zod';
import { html, type Html } from './html.js';

export type FormErrors = Record<string, string>;

export interface FieldSpec {
  name: string;
  label: string;
  type?: 'text' | 'email' | 'password' | 'number' | 'datetime-local';
  hint?: string;
  required?: boolean;
  autocomplete?: string;
  inputmode?: 'numeric' | 'decimal' | 'text';
  maxlength?: number;
  /** For number fields. */
  min?: number;
  max?: number;
  step?: number | 'any';
}

const fieldId = (name: string) => `field-${name}`;

export function field(spec: FieldSpec, value: string | undefined, error: string | undefined): Html {
  const id = fieldId(spec.name);
  const described = [spec.hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return html`<div class="field${error ? ' field-error' : ''}">
  <label for="${id}">${spec.label}${spec.required ? '' : html` <span class="muted">(optional)</span>`}</label>
  ${spec.hint ? html`<p class="hint" id="${id}-hint">${spec.hint}</p>` : ''}
  ${error ? html`<p class="error-message" id="${id}-error"><span class="visually-hidden">Error: </span>${error}</p>` : ''}
  <input id="${id}" name="${spec.name}" type="${spec.type ?? 'text'}" value="${spec.type === 'password' ? '' : (value ?? '')}"${spec.required ? html` required` : ''}${
    spec.autocomplete ? html` autocomplete="${spec.autocomplete}"` : ''
  }${spec.inputmode ? html` inputmode="${spec.inputmode}"` : ''}${spec.maxlength ? html` maxlength="${spec.maxlength}"` : ''}${
    spec.min !== undefined ? html` min="${spec.min}"` : ''
  }${spec.max !== undefined ? html` max="${spec.max}"` : ''}${spec.step !== undefined ? html` step="${spec.step}"` : ''}${
    described ? html` aria-describedby="${described}"` : ''
  }${error ? html` aria-invalid="true"` : ''}>
</div>`;
}

export function errorSummary(errors: FormErrors): Html {
  const entries = Object.entries(errors);
  if (entries.length === 0) return html``;
  return html`<div class="error-summary" role="alert" tabindex="-1">
  <h2>There is a problem</h2>
  <ul>${entries.map(([name, message]) => html`<li><a href="#${fieldId(name)}">${message}</a></li>`)}</ul>
</div>`;
}

/** One message per field, from a failed zod parse (the first issue of each field wins). */
export function errorsOf(error: z.ZodError): FormErrors {
  const out: FormErrors = {};
  for (const issue of error.issues) {
    const name = String(issue.path[0] ?? 'form');
    out[name] ??= issue.message;
  }
  return out;
}

/** The submitted form's text fields (repeated names: the last one). */
export function formValues(body: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof body !== 'object' || body === null) return out;
  for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
    const last = Array.isArray(v) ? v.at(-1) : v;
    if (typeof last === 'string') out[k] = last;
  }
  return out;
}
