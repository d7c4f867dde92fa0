// What the delivery log keeps of a receiver's failed answer, for the owner to read in the dashboard
// and the operator in the CLI: at most EXCERPT_CHARS characters of its body, on one line, with
// control and direction-changing characters removed and anything that looks like a secret (bearer
// tokens, JWTs, key=value credentials, URL passwords, long random strings) replaced. A receiver may
// be anyone's server, and its answer may echo headers, credentials or terminal escapes.
export const EXCERPT_CHARS = 200;
const REDACTED = '[redacted]';

/** Terminal escape sequences (CSI and OSC), dropped whole so no "[31m" is left behind. */
const ESCAPES = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?/g;
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/g;
const SECRETS: [RegExp, string][] = [
  [/\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g, REDACTED],
  [/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@:]+:[^\s/@]+@/gi, `$1${REDACTED}@`],
  [
    /(["']?[\w.-]*(?:secret|token|passw(?:or)?d|pwd|api[_-]?key|apikey|auth\w*|session|cookie|signature|credential|private[_-]?key|access[_-]?key)[\w.-]*["']?\s*[:=]\s*)(?:(?:bearer|basic|token)\s+)?("[^"]*"|'[^']*'|[^\s,;&}]+)/gi,
    `$1${REDACTED}`,
  ],
  [/\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi, `$1 ${REDACTED}`],
  [/\bAKIA[0-9A-Z]{16}\b/g, REDACTED],
  [/[A-Za-z0-9+/_=-]{32,}/g, REDACTED],
];

/** The shown excerpt of an answer's body; empty when nothing readable is left. */
export function answerExcerpt(body: string): string {
  let text = body.slice(0, EXCERPT_CHARS * 20).replace(ESCAPES, '').replace(CONTROL, ' ');
  for (const [pattern, replacement] of SECRETS) text = text.replace(pattern, replacement);
  text = text.replace(/\s+/g, ' ').trim();
  return text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS - 1)}…` : text;
}
