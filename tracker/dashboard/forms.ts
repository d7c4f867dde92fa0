// Form markup with accessible errors: each field has a label, an optional hint, and its error tied
// to it (aria-describedby, aria-invalid); a summary at the top links to every field in error.
import { z } from 'zod';
import { html, type Html } from './html.js';

export type FormErrors = Record<string, string>;

export interface Choice {
  value: string;
  label: string;
}

export interface FieldSpec {
  name: string;
  label: string;
  type?: 'text' | 'email' | 'password' | 'number' | 'datetime-local' | 'select' | 'textarea';
  hint?: string;
  required?: boolean;
  autocomplete?: string;
  inputmode?: 'numeric' | 'decimal' | 'text' | 'url';
  maxlength?: number;
  /** For number fields. */
  min?: number;
  max?: number;
  step?: number | 'any';
  /** For select fields, in order. */
  choices?: readonly Choice[];
  /** For textareas. */
  rows?: number;
}

const fieldId = (name: string) => `field-${name}`;

function control(spec: FieldSpec, id: string, value: string | undefined, described: string, error: string | undefined): Html {
  const common = html`id="${id}" name="${spec.name}"${spec.required ? html` required` : ''}${spec.autocomplete ? html` autocomplete="${spec.autocomplete}"` : ''}${
    described ? html` aria-describedby="${described}"` : ''
  }${error ? html` aria-invalid="true"` : ''}`;
  if (spec.type === 'select') {
    return html`<select ${common}>${(spec.choices ?? []).map((c) => html`<option value="${c.value}"${c.value === (value ?? '') ? html` selected` : ''}>${c.label}</option>`)}</select>`;
  }
  if (spec.type === 'textarea') {
    return html`<textarea ${common} rows="${spec.rows ?? 6}" spellcheck="false"${spec.maxlength ? html` maxlength="${spec.maxlength}"` : ''}>${value ?? ''}</textarea>`;
  }
  return html`<input ${common} type="${spec.type ?? 'text'}" value="${spec.type === 'password' ? '' : (value ?? '')}"${spec.inputmode ? html` inputmode="${spec.inputmode}"` : ''}${
    spec.maxlength ? html` maxlength="${spec.maxlength}"` : ''
  }${spec.min !== undefined ? html` min="${spec.min}"` : ''}${spec.max !== undefined ? html` max="${spec.max}"` : ''}${spec.step !== undefined ? html` step="${spec.step}"` : ''}>`;
}

/** A labelled field; fields not `required` are marked optional, except selects, which always hold a choice. */
export function field(spec: FieldSpec, value: string | undefined, error: string | undefined): Html {
  const id = fieldId(spec.name);
  const described = [spec.hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return html`<div class="field${error ? ' field-error' : ''}">
  <label for="${id}">${spec.label}${spec.required || spec.type === 'select' ? '' : html` <span class="muted">(optional)</span>`}</label>
  ${spec.hint ? html`<p class="hint" id="${id}-hint">${spec.hint}</p>` : ''}
  ${error ? html`<p class="error-message" id="${id}-error"><span class="visually-hidden">Error: </span>${error}</p>` : ''}
  ${control(spec, id, value, described, error)}
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

/**
 * An issue of one of the API's schemas as the end of a sentence that starts with the field's name:
 * the API's own words, except zod's built-in range messages ("Too small: expected number to be
 * >=-90"), which are said plainly.
 */
export function issueText(issue: z.core.$ZodIssue): string {
  const builtIn = /^Too (small|big):/.test(issue.message);
  if (builtIn && issue.code === 'too_small') return `must be ${issue.inclusive ? 'at least' : 'greater than'} ${String(issue.minimum)}`;
  if (builtIn && issue.code === 'too_big') return `must be ${issue.inclusive ? 'at most' : 'less than'} ${String(issue.maximum)}`;
  if (issue.code === 'invalid_value') return `must be one of ${issue.values.map(String).join(', ')}`;
  return issue.message;
}

/**
 * A form field checked by `check` (a field schema of the API, so both refuse the same input),
 * its messages starting with `label`.
 */
export function checkedBy<T>(label: string, check: z.ZodType<T>) {
  return (value: unknown, ctx: z.core.$RefinementCtx<unknown>): T => {
    const result = check.safeParse(value);
    if (result.success) return result.data;
    ctx.addIssue({ code: 'custom', message: `${label} ${issueText(result.error.issues[0]!)}` });
    return z.NEVER;
  };
}

/** A text field of a form: trimmed by `check` itself; a field the form left out is undefined. */
export const formText = <T>(label: string, check: z.ZodType<T>) => z.string().optional().transform(checkedBy(label, check));

/** A number as typed in a form: decimal point, optional sign and exponent (no thousands separators). */
export const DECIMAL = /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i;

/**
 * A number field of a form: blank is null (clears the setting), a field the form left out is
 * undefined (leaves it as it is), anything else must be a number that `check` accepts.
 */
export const formNumber = <T>(label: string, check: z.ZodType<T>) =>
  z
    .string()
    .optional()
    .transform((raw, ctx): T | null | undefined => {
      if (raw === undefined) return undefined;
      const text = raw.trim();
      if (text === '') return null;
      if (!DECIMAL.test(text)) {
        ctx.addIssue({ code: 'custom', message: `${label} must be a number, such as 12.5` });
        return z.NEVER;
      }
      return checkedBy(label, check)(Number(text), ctx);
    });
