// The account dashboard, served under /dashboard (reached through the gateway like every public
// path): static files, sign-in and set-password, then the pages that need a session. Every error
// under /dashboard is answered as an HTML page.
import { Router, urlencoded, type ErrorRequestHandler } from 'express';
import { ApiError } from '../../shared/errors.js';
import type { TrackerContext } from '../context.js';
import { pageHeaders } from '../http/page-headers.js';

import { databaseUnavailable } from '../storage/unavailable.js';
import { serveAsset } from './assets.js';
import { html } from './html.js';
import { dashboardStreams, type LiveStreams } from './live-stream.js';
import { tileSource } from './map-tiles.js';
import { BASE, page } from './layout.js';
import { alertsPage } from './pages/alerts.js';
import { authPages } from './pages/auth.js';
import { devicesPages } from './pages/devices.js';
import { driversPages } from './pages/drivers.js';
import { fleetPages } from './pages/fleet.js';
import { geofencesPages } from './pages/geofences.js';
import { inboundPages } from './pages/inbound.js';
import { recordsPages } from './pages/records.js';
import { tokensPages } from './pages/tokens.js';
import { trackPage } from './pages/track.js';
import { webhooksPages } from './pages/webhooks.js';
import { checkOrigin, requireSession, sessionOf } from './security.js';
import type { SignInSession } from '../users/sign-in-sessions.js';
import { endSession } from './session-cookie.js';

const TITLES: Record<number, string> = {
  400: 'That did not work',
  403: 'Refused',
  404: 'Not found',
  409: 'Already exists',
  413: 'Too much data',
  429: 'Too many requests',
  500: 'Something went wrong',
  503: 'Try again shortly',
};

function errorPages(): ErrorRequestHandler {
  return function errorPages(err, req, res, _next) {
    const status = err instanceof ApiError ? err.status : err.type === 'entity.too.large' ? 413 : Number.isInteger(err.status) && err.status >= 400 && err.status < 500 ? 400 : 500;
    if (status === 500) req.log.error({ err }, 'dashboard error');
    if (res.headersSent) return void res.destroy();
    if (err instanceof ApiError) for (const [k, v] of Object.entries(err.headers)) res.setHeader(k, v);
    const message =
      err instanceof ApiError ? err.message
      : status === 413 ? 'The form sent more data than the dashboard accepts.'
      : status === 400 ? 'The form could not be read. Go back and try again.'
      : 'The page could not be shown. Try again in a moment; if it keeps happening, tell your operator.';
    const session = res.locals.session as SignInSession | undefined;
    res.status(status).send(page({ title: TITLES[status] ?? TITLES[400]!, session }, html`<p>${message}</p><p><a href="${BASE}/devices">Go to your devices</a></p>`));
  };
}

export function dashboardRoutes(ctx: TrackerContext, live: LiveStreams): Router {
  const pages = Router();
  const streams = dashboardStreams(ctx, live);
  // Map tiles come from the configured tile server alone; the maps' scripts fetch and stream from the dashboard alone.
  pages.use(pageHeaders({ 'img-src': `'self' ${tileSource(ctx.config.MAP_TILE_URL)}`, 'connect-src': "'self'" }));
  pages.get('/assets/:file', serveAsset);
  // A geofence's polygon may have up to 1000 corners; every other form fits in 16 KiB.
  pages.use('/geofences', urlencoded({ extended: false, limit: '128kb', parameterLimit: 100 }));
  pages.use(urlencoded({ extended: false, limit: '16kb', parameterLimit: 100 }));
  pages.use(checkOrigin(ctx.config));
  pages.use(authPages(ctx));
  pages.use(requireSession(ctx.db, ctx.config));
  pages.get('/', (_req, res) => res.redirect(303, `${BASE}/devices`));
  pages.post('/logout', async (req, res) => {
    const session = sessionOf(res);
    await endSession(ctx.db, req, res, session);
    streams.endSession(session.idHash);
    res.redirect(303, `${BASE}/login?signed_out=1`);
  });
  pages.use(streams.routes, fleetPages(ctx), devicesPages(ctx), trackPage(ctx), alertsPage(ctx), geofencesPages(ctx), driversPages(ctx), recordsPages(ctx), webhooksPages(ctx), inboundPages(ctx), tokensPages(ctx));
  pages.use((_req, _res, next) => next(new ApiError('not_found', 'There is no such page.')));
  pages.use(databaseUnavailable());
  pages.use(errorPages());

  const router = Router();
  router.use(BASE, pages);
  return router;
}
