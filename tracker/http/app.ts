// The tracker's internal HTTP app: health checks open, everything else only through the gateway.
import express from 'express';
import { errorHandler, noStore, notFound, requestLogging } from '../../shared/http.js';
import { requestMetrics } from '../../shared/metrics.js';
import { adminRoute } from '../admin/route.js';
import { docsRoutes } from '../api/docs.js';
import { publicApi } from '../api/router.js';
import { dashboardRoutes } from '../dashboard/router.js';
import type { TrackerContext } from '../context.js';
import type { LiveFeed } from '../stream/index.js';
import { tokenStatusRoute } from '../tokens/route.js';
import { databaseUnavailable } from '../storage/unavailable.js';
import { gatewayAuth } from './gateway-auth.js';
import { healthChecks } from './health.js';

/** The Express route template a request matched (`/api/public/v1/devices/{id}`), for metrics labels. */
function routeOf(req: express.Request): string {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' ? path.replace(/:(\w+)/g, '{$1}') : 'unmatched';
}

export function createTrackerApp(ctx: TrackerContext, live: LiveFeed): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  const health = healthChecks(ctx.db, ctx.reads);
  app.get('/healthz', health.healthz);
  app.get('/readyz', health.readyz);
  app.use(requestMetrics(ctx.metrics.requests, routeOf));
  app.use(requestLogging(ctx.logger));
  app.use(noStore);
  app.use(gatewayAuth(ctx.gatewaySecret));
  app.use(adminRoute(ctx));
  app.use(tokenStatusRoute(ctx));
  app.use(publicApi(ctx, { streamFeed: live.handler }));
  app.use(dashboardRoutes(ctx, live));
  app.use(docsRoutes(ctx.config.PUBLIC_BASE_URL));
  app.use(notFound());
  app.use(databaseUnavailable());
  app.use(errorHandler());
  return app;
}
