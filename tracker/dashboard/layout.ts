// The page shell every dashboard page shares: skip link, header with the main navigation and the
// signed-in user, one <main> with the page title, and notices. Adding a page to the navigation
// is one line in NAV.
import type { SignInSession } from '../users/sign-in-sessions.js';
import { assetUrl, type AssetName } from './assets.js';
import { html, type Html } from './html.js';

export const BASE = '/dashboard';

export type Section = 'devices' | 'alerts' | 'geofences' | 'drivers' | 'records' | 'webhooks' | 'inbound' | 'tokens';

const NAV: readonly { section: Section; href: string; label: string }[] = [
  { section: 'devices', href: `${BASE}/devices`, label: 'Devices' },
  { section: 'alerts', href: `${BASE}/alerts`, label: 'Alerts' },
  { section: 'geofences', href: `${BASE}/geofences`, label: 'Geofences' },
  { section: 'drivers', href: `${BASE}/drivers`, label: 'Drivers' },
  { section: 'records', href: `${BASE}/records`, label: 'Records' },
  { section: 'webhooks', href: `${BASE}/webhooks`, label: 'Webhooks' },
  { section: 'inbound', href: `${BASE}/inbound`, label: 'Inbound webhooks' },
  { section: 'tokens', href: `${BASE}/tokens`, label: 'API tokens' },
];

export interface PageOptions {
  title: string;
  /** Present on pages for a signed-in user: shows the navigation and the sign-out button. */
  session?: SignInSession | null;
  section?: Section;
  notice?: Html | null;
  /** Markup placed before the title (e.g. a back link). */
  before?: Html;
  /** Further stylesheets and scripts the page needs (the map's), linked in this order after the shared ones. */
  assets?: readonly AssetName[];
}

export function csrfInput(session: SignInSession): Html {
  return html`<input type="hidden" name="_csrf" value="${session.csrfToken}">`;
}

export type NoticeKind = 'success' | 'error' | 'info';

export function notice(kind: NoticeKind, body: Html | string): Html {
  // Errors interrupt (role=alert); confirmations are announced politely.
  return html`<div class="notice notice-${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${body}</div>`;
}

function header(session: SignInSession | null | undefined, section: Section | undefined): Html {
  if (!session) return html`<header class="top"><span class="brand">Fleet dashboard</span></header>`;
  return html`<header class="top">
  <a class="brand" href="${BASE}/devices">Fleet dashboard</a>
  <nav aria-label="Main"><ul>${NAV.map(
    (n) => html`<li><a href="${n.href}"${n.section === section ? html` aria-current="page"` : ''}>${n.label}</a></li>`,
  )}</ul></nav>
  <div class="who"><span class="who-name">${session.email}<span class="who-account">${session.accountName}</span></span>
    <form method="post" action="${BASE}/logout">${csrfInput(session)}<button type="submit" class="button-quiet">Sign out</button></form>
  </div>
</header>`;
}

export function page(opts: PageOptions, body: Html): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${opts.title} · Fleet dashboard</title>
<link rel="icon" type="image/svg+xml" href="${assetUrl('icon.svg')}">
<link rel="stylesheet" href="${assetUrl('dashboard.css')}">
<script src="${assetUrl('dashboard.js')}" defer></script>
${(opts.assets ?? []).map((a) => (a.endsWith('.css') ? html`<link rel="stylesheet" href="${assetUrl(a)}">
` : html`<script src="${assetUrl(a)}" defer></script>
`))}</head>
<body>
<a class="skip-link" href="#main">Skip to content</a>
${header(opts.session, opts.section)}
<main id="main" tabindex="-1">
${opts.before}
<h1>${opts.title}</h1>
${opts.notice}
${body}
</main>
</body>
</html>
`.text;
}

/** Dates as the dashboard shows them: UTC, to the minute, unambiguous. */
export function when(d: Date | null, empty = 'never'): Html {
  if (!d) return html`<span class="muted">${empty}</span>`;
  const iso = d.toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC</time>`;
}
