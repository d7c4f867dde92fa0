// API tokens: create with a name and scopes (the value is shown once, on the page that answers
// the form, and stored nowhere), list with scopes, created and last used, revoke. The gateway
// re-checks a token's status at least every TOKEN_CACHE_MS, so a revoked token is refused within
// a second.
import { Router, type Response } from 'express';
import { z } from 'zod';
import { ApiError } from '../../../shared/errors.js';
import { SCOPES, type Scope } from '../../../shared/scopes.js';
import { requiredText } from '../../../shared/validation.js';
import type { TrackerContext } from '../../context.js';
import { issueToken } from '../../tokens/issue.js';
import { findToken, listTokens, revokeToken, type TokenRecord } from '../../tokens/repository.js';
import type { SignInSession } from '../../users/sign-in-sessions.js';
import { errorSummary, errorsOf, field, formValues, type FormErrors } from '../forms.js';
import { html, type Html } from '../html.js';
import { BASE, csrfInput, notice, page, when } from '../layout.js';
import { ownRecord, sessionOf } from '../security.js';
import { shownOnce } from '../shown-once.js';

const SCOPE_HELP: Record<Scope, string> = {
  read: 'List units, positions and alerts',
  write: 'Create and change metadata such as geofences and drivers',
  commands: 'Send commands to devices, such as locate',
};

const NewToken = z.object({
  name: requiredText('token name', 200),
  scopes: z
    .array(z.enum(SCOPES), { error: 'choose at least one scope' })
    .min(1, 'choose at least one scope')
    .transform((list) => [...new Set(list)]),
});

function tokenTable(session: SignInSession, tokens: TokenRecord[]): Html {
  if (tokens.length === 0) {
    return html`<div class="empty"><p><strong>No API tokens yet.</strong></p><p>Create one below for each system that reads your fleet's data through the API.</p></div>`;
  }
  return html`<table class="table">
  <caption class="visually-hidden">API tokens of this account</caption>
  <thead><tr><th scope="col">Name</th><th scope="col">Scopes</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Status</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
  <tbody>${tokens.map(
    (t) => html`<tr>
    <th scope="row" data-label="Name">${t.name}</th>
    <td data-label="Scopes">${t.scopes.map((s) => html`<span class="badge">${s}</span> `)}</td>
    <td data-label="Created">${when(t.createdAt)}</td>
    <td data-label="Last used">${when(t.lastUsedAt)}</td>
    <td data-label="Status">${t.revokedAt ? html`<span class="badge badge-offline">Revoked</span> ${when(t.revokedAt)}` : html`<span class="badge badge-online">Active</span>`}</td>
    <td data-label="">${
      t.revokedAt
        ? ''
        : html`<form method="post" action="${BASE}/tokens/${encodeURIComponent(t.id)}/revoke" data-confirm="${`Revoke the token “${t.name}”? Systems using it lose access within a second.`}">
      ${csrfInput(session)}<button type="submit" class="button-danger">Revoke<span class="visually-hidden"> ${t.name}</span></button></form>`
    }</td>
  </tr>`,
  )}</tbody>
</table>`;
}

function createForm(session: SignInSession, values: { name?: string; scopes?: string[] }, errors: FormErrors): Html {
  const chosen = new Set(values.scopes ?? ['read']);
  return html`<section aria-labelledby="new-token" class="panel">
  <h2 id="new-token">Create a token</h2>
  ${errorSummary(errors)}
  <form method="post" action="${BASE}/tokens" class="form" novalidate>
    ${csrfInput(session)}
    ${field({ name: 'name', label: 'Name', required: true, maxlength: 200, autocomplete: 'off', hint: 'Which system uses it, e.g. “ERP sync”.' }, values.name, errors.name)}
    <fieldset class="${errors.scopes ? 'field-error' : ''}" id="field-scopes"${errors.scopes ? html` aria-describedby="field-scopes-error"` : ''}>
      <legend>Scopes</legend>
      ${errors.scopes ? html`<p class="error-message" id="field-scopes-error"><span class="visually-hidden">Error: </span>${errors.scopes}</p>` : ''}
      ${SCOPES.map(
        (s) => html`<div class="check"><input type="checkbox" id="scope-${s}" name="scopes" value="${s}"${chosen.has(s) ? html` checked` : ''} aria-describedby="scope-${s}-help">
        <label for="scope-${s}"><span class="mono">${s}</span></label> <span class="hint" id="scope-${s}-help">${SCOPE_HELP[s]}</span></div>`,
      )}
    </fieldset>
    <button type="submit" class="button">Create token</button>
  </form>
</section>`;
}

function createdNotice(name: string, token: string): Html {
  return shownOnce(html`Token “${name}” created`, [{ id: 'new-token-value', label: 'Token', copy: 'Copy token', value: token, rows: 4 }], 'It is not stored anywhere; if it is lost, revoke it and create another.');
}

async function tokensPage(ctx: TrackerContext, res: Response, message: Html | null, form: { values: { name?: string; scopes?: string[] }; errors: FormErrors }): Promise<string> {
  const session = sessionOf(res);
  const tokens = await listTokens(ctx.db, session.accountId);
  return page({ title: 'API tokens', session, section: 'tokens', notice: message }, html`${tokenTable(session, tokens)}${createForm(session, form.values, form.errors)}`);
}

export function tokensPages(ctx: TrackerContext): Router {
  const router = Router();

  router.get('/tokens', async (req, res) => {
    const revoked = typeof req.query.revoked === 'string' ? await findToken(ctx.db, req.query.revoked) : null;
    const mine = revoked && revoked.accountId === sessionOf(res).accountId ? revoked : null;
    const message = mine ? notice('success', html`Token <strong>${mine.name}</strong> revoked. The API refuses it within a second.`) : null;
    res.send(await tokensPage(ctx, res, message, { values: {}, errors: {} }));
  });

  router.post('/tokens', async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const scopes = ([] as unknown[]).concat(body.scopes ?? []).filter((s): s is string => typeof s === 'string');
    const values = { name: formValues(body).name, scopes };
    const parsed = NewToken.safeParse(values);
    if (!parsed.success) return res.status(400).send(await tokensPage(ctx, res, null, { values, errors: errorsOf(parsed.error) }));
    const session = sessionOf(res);
    let issued;
    try {
      issued = await issueToken(ctx.db, ctx.privateKey, { accountId: session.accountId, name: parsed.data.name, scopes: parsed.data.scopes }, ctx.config);
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== 'conflict') throw err;
      return res.status(409).send(await tokensPage(ctx, res, notice('error', `The token was not created: ${err.message}.`), { values, errors: {} }));
    }
    const { record, token } = issued;
    req.log.info({ tokenId: record.id, accountId: session.accountId, userId: session.userId }, 'token created in the dashboard');
    res.status(201).send(await tokensPage(ctx, res, createdNotice(record.name, token), { values: {}, errors: {} }));
  });

  router.post('/tokens/:id/revoke', async (req, res) => {
    const session = sessionOf(res);
    const token = ownRecord(res, await findToken(ctx.db, req.params.id), 'There is no such token in this account.');
    await revokeToken(ctx.db, token.id);
    req.log.info({ tokenId: token.id, accountId: session.accountId, userId: session.userId }, 'token revoked in the dashboard');
    res.redirect(303, `${BASE}/tokens?revoked=${encodeURIComponent(token.id)}`);
  });

  return router;
}
