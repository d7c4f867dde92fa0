// Prometheus metrics both services share: a registry per service, the request histogram labelled by
// route template (never the raw path, whose ids would make one series per device), counters read
// from numbers the code already keeps, and the internal listener that serves /metrics.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Request, RequestHandler, Response } from 'express';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import { errorBody } from './errors.js';
import { closeServer } from './http.js';

export type RequestLabels = 'method' | 'route' | 'status';

/** Seconds; from a cached token check (~1 ms) to the upstream timeout. */
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** A registry of one service; every series carries `service` so one Prometheus job can scrape both. */
export function serviceRegistry(service: 'gateway' | 'tracker'): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  return registry;
}

export function requestHistogram(registry: Registry): Histogram<RequestLabels> {
  return new Histogram({
    name: 'fleet_http_request_duration_seconds',
    help: 'HTTP requests by method, route template and status (aborted: the client left first), and their duration',
    labelNames: ['method', 'route', 'status'],
    buckets: REQUEST_BUCKETS,
    registers: [registry],
  });
}

/**
 * Observes every request when its response is done. `routeOf` names the route template the request
 * matched, or `unmatched`: a raw path never becomes a label.
 */
export function requestMetrics(histogram: Histogram<RequestLabels>, routeOf: (req: Request, res: Response) => string): RequestHandler {
  return function requestMetrics(req, res, next) {
    const started = process.hrtime.bigint();
    res.once('close', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      histogram.observe({ method: req.method, route: routeOf(req, res), status: res.writableFinished ? String(res.statusCode) : 'aborted' }, seconds);
    });
    next();
  };
}

/**
 * A counter whose value is read at scrape time from a number the code keeps anyway (a plain field
 * costs the hot path nothing). `read` returns the total, or totals by the one label.
 */
export function counterFrom<L extends string>(
  registry: Registry,
  config: { name: string; help: string; label?: L },
  read: () => number | Iterable<[string, number]>,
): Counter<L> {
  return new Counter<L>({
    name: config.name,
    help: config.help,
    labelNames: config.label ? [config.label] : [],
    registers: [registry],
    collect() {
      this.reset();
      const value = read();
      if (typeof value === 'number') return void this.inc(value);
      for (const [label, n] of value) this.inc({ [config.label!]: label } as Partial<Record<L, string>>, n);
    },
  });
}

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

/**
 * Serves GET /metrics on an internal port (not behind nginx). Process metrics (CPU, memory, event
 * loop delay, GC) are added here, once per process, since only a served registry needs them.
 */
export async function serveMetrics(registry: Registry, port: number, host: string): Promise<MetricsServer> {
  collectDefaultMetrics({ register: registry });
  const notFound = JSON.stringify(errorBody('not_found', 'no such endpoint'));
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'application/json; charset=utf-8' }).end(notFound);
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store' }).end(text),
      () => res.writeHead(500, { 'Content-Type': 'application/json; charset=utf-8' }).end(JSON.stringify(errorBody('internal'))),
    );
  });
  const bound = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
  return { port: bound, close: () => closeServer(server, Date.now() + 1000).then(() => undefined) };
}
