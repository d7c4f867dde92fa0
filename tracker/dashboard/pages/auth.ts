// Signing in and out, and setting a password through a one-time link. Sign-in has no session to
// hold a CSRF token yet, so its form carries a double-submit token (a random value in a
// SameSite=Strict cookie and in the form), on top of the Origin check every POST gets.
import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import type { TrackerContext } from '../../context.js';
import { countAttempt, countSetPassword, forgiveAttempt } from '../../users/login-limits.js';
import { hashPassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, newPassword, verifyNothing, verifyPassword } from '../../users/passwords.js';
import { email, findUserByEmail, findUserByLink, setPasswordByLink } from '../../users/repository.js';
import { digest, randomSecret } from '../../users/secrets.js';
import { clientAddress, cookie, overTls } from '../client.js';
import { errorSummary, errorsOf, field, formValues, type FormErrors } from '../forms.js';
import { html } from '../html.js';
import { BASE, notice, page } from '../layout.js';
import { safeNext, tokenMatches } from '../security.js';
import { currentSession, startSession } from '../session-cookie.js';

const LOGIN_COOKIE = 'fleet_login';
const HOME = `${BASE}/devices`;

const SignIn = z.object({
  email,
  password: z.string({ error: 'password is required' }).min(1, 'password is required').max(1024, 'password is too long'),
});

const SetPassword = z
  .object({ password: newPassword, confirm: z.string({ error: 'repeat the password' }) })
  .refine((v) => v.password === v.confirm, { path: ['confirm'], message: 'the two passwords are not the same' });

const WRONG = 'The email address or password is not correct.';

const waitText = (seconds: number) => {
  const [n, unit] = seconds < 60 ? [seconds, 'second'] : [Math.ceil(seconds / 60), 'minute'];
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
};

function loginToken(req: Request, res: Response): string {
  const existing = cookie(req, LOGIN_COOKIE);
  if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
  const token = randomSecret();
  res.cookie(LOGIN_COOKIE, token, { httpOnly: true, sameSite: 'strict', secure: overTls(req), path: BASE });
  return token;
}

interface LoginView {
  email?: string;
  next?: string | null;
  errors?: FormErrors;
  message?: ReturnType<typeof notice> | null;
}

function loginPage(req: Request, res: Response, view: LoginView): string {
  const errors = view.errors ?? {};
  return page(
    { title: 'Sign in', notice: view.message },
    html`${errorSummary(errors)}
<form method="post" action="${BASE}/login" class="form narrow" novalidate>
  <input type="hidden" name="_csrf" value="${loginToken(req, res)}">
  ${view.next ? html`<input type="hidden" name="next" value="${view.next}">` : ''}
  ${field({ name: 'email', label: 'Email address', type: 'email', required: true, autocomplete: 'username' }, view.email, errors.email)}
  ${field({ name: 'password', label: 'Password', type: 'password', required: true, autocomplete: 'current-password' }, undefined, errors.password)}
  <button type="submit" class="button">Sign in</button>
</form>
<p class="muted">No password yet, or forgotten it? Ask your operator for a link to set one.</p>`,
  );
}

const LINK_INVALID = html`<p>This link does not work: it has been used already, a newer link replaced it, or it has expired.</p>
<p>Ask your operator for a new link.</p>`;

function setPasswordPage(token: string, userEmail: string, errors: FormErrors): string {
  return page(
    { title: 'Set your password' },
    html`${errorSummary(errors)}
<form method="post" action="${BASE}/set-password" class="form narrow" novalidate>
  <input type="hidden" name="token" value="${token}">
  <div class="field"><label for="field-username">Email address</label>
    <input id="field-username" type="email" name="username" value="${userEmail}" autocomplete="username" readonly></div>
  ${field(
    { name: 'password', label: 'New password', type: 'password', required: true, autocomplete: 'new-password', hint: `At least ${MIN_PASSWORD_LENGTH} characters (at most ${MAX_PASSWORD_LENGTH}). A phrase of several words is easy to remember and hard to guess.` },
    undefined,
    errors.password,
  )}
  ${field({ name: 'confirm', label: 'Repeat the new password', type: 'password', required: true, autocomplete: 'new-password' }, undefined, errors.confirm)}
  <button type="submit" class="button">Set password</button>
</form>`,
  );
}

export function authPages(ctx: TrackerContext): Router {
  const router = Router();
  const { db, config } = ctx;

  router.get('/login', async (req, res) => {
    if (await currentSession(db, req, config)) return res.redirect(303, HOME);
    const q = req.query;
    const message =
      q.password === 'set' ? notice('success', 'Your password is set. Sign in with it now.')
      : q.signed_out === '1' ? notice('info', 'You have signed out.')
      : q.expired === '1' ? notice('info', 'Your session has ended. Sign in again to continue.')
      : null;
    res.send(loginPage(req, res, { next: safeNext(q.next), message }));
  });

  router.post('/login', async (req, res) => {
    const values = formValues(req.body);
    const next = safeNext(values.next);
    const retry = (status: number, view: LoginView) => res.status(status).send(loginPage(req, res, { email: values.email, next, ...view }));
    const expected = cookie(req, LOGIN_COOKIE);
    if (!expected || !tokenMatches(req, expected)) {
      return retry(403, { message: notice('error', 'The sign-in form had expired. Please sign in again.') });
    }
    const parsed = SignIn.safeParse(values);
    if (!parsed.success) return retry(400, { errors: errorsOf(parsed.error) });

    const who = { email: parsed.data.email, address: clientAddress(req) };
    const wait = await countAttempt(db, who, config);
    if (wait > 0) {
      ctx.metrics.dashboardThrottled.inc({ form: 'sign_in' });
      res.set('Retry-After', String(wait));
      return retry(429, { message: notice('error', `Too many sign-in attempts. Try again in ${waitText(wait)}.`) });
    }
    const user = await findUserByEmail(db, parsed.data.email);
    const ok = user?.passwordHash ? await verifyPassword(parsed.data.password, user.passwordHash) : await verifyNothing(parsed.data.password);
    if (!ok || !user) return retry(401, { message: notice('error', WRONG) });

    await forgiveAttempt(db, who);
    await startSession(db, req, res, user.id, config);
    res.clearCookie(LOGIN_COOKIE, { httpOnly: true, sameSite: 'strict', secure: overTls(req), path: BASE });
    req.log.info({ userId: user.id, accountId: user.accountId }, 'dashboard sign-in');
    res.redirect(303, next ?? HOME);
  });

  router.get('/set-password', async (req, res) => {
    const token = typeof req.query.token === 'string' ? req.query.token : '';
    const user = token ? await findUserByLink(db, digest(token)) : null;
    if (!user) return res.status(404).send(page({ title: 'Set your password' }, LINK_INVALID));
    res.send(setPasswordPage(token, user.email, {}));
  });

  // The link is checked before any password is hashed, so forms with made-up links cost a lookup,
  // not the scrypt work a real one does; each client address may send only so many.
  router.post('/set-password', async (req, res) => {
    const wait = await countSetPassword(db, clientAddress(req), config);
    if (wait > 0) {
      ctx.metrics.dashboardThrottled.inc({ form: 'set_password' });
      res.set('Retry-After', String(wait));
      return res.status(429).send(page({ title: 'Set your password', notice: notice('error', `Too many attempts to set a password. Try again in ${waitText(wait)}.`) }, html``));
    }
    const values = formValues(req.body);
    const token = values.token ?? '';
    const linkHash = digest(token);
    const linked = token ? await findUserByLink(db, linkHash) : null;
    if (!linked) return res.status(404).send(page({ title: 'Set your password' }, LINK_INVALID));
    const parsed = SetPassword.safeParse(values);
    if (!parsed.success) return res.status(400).send(setPasswordPage(token, linked.email, errorsOf(parsed.error)));
    const passwordHash = await hashPassword(parsed.data.password);
    // Spent in one statement: of two forms sent with the same link, only one sets the password.
    const user = await db.transaction((tx) => setPasswordByLink(tx, linkHash, passwordHash));
    if (!user) return res.status(404).send(page({ title: 'Set your password' }, LINK_INVALID));
    req.log.info({ userId: user.id, accountId: user.accountId }, 'dashboard password set');
    res.redirect(303, `${BASE}/login?password=set`);
  });

  return router;
}
