// The one way dashboard pages build markup: html`…` escapes every interpolated value, unless the
// value is itself markup made by html`…`. There is no way to insert unescaped text.
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

export class Html {
  /** Only html`…` makes these, so `text` is always markup built from escaped parts. */
  private constructor(readonly text: string) {}

  static fromParts(strings: TemplateStringsArray, values: readonly HtmlValue[]): Html {
    let out = strings[0]!;
    values.forEach((v, i) => (out += render(v) + strings[i + 1]!));
    return new Html(out);
  }

  toString(): string {
    return this.text;
  }
}

/** What may appear in ${…}: markup, text and numbers (escaped); nothing for null, undefined, false. */
export type HtmlValue = Html | string | number | null | undefined | false | readonly HtmlValue[];

function render(v: HtmlValue): string {
  if (v instanceof Html) return v.text;
  if (Array.isArray(v)) return (v as readonly HtmlValue[]).map(render).join('');
  if (v === null || v === undefined || v === false) return '';
  return escapeHtml(String(v));
}

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  return Html.fromParts(strings, values);
}
