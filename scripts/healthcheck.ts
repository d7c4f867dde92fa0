// Container health check (the Dockerfiles' HEALTHCHECK): `node dist/scripts/healthcheck.js gateway`
// (or `tracker`) asks the service's own /healthz, on the port and address its settings name, and
// exits 0 when it answers 200, 1 otherwise.
import { loadConfig, parseGatewayConfig, parseTrackerConfig } from '../shared/config.js';

const TIMEOUT_MS = 2000;

/** Where the service listens, read from its own settings only, as the service itself reads them. */
function listenAddress(service: string | undefined): { host: string; port: number } | null {
  if (service === 'gateway') {
    const config = loadConfig(parseGatewayConfig);
    return { host: config.GATEWAY_HOST, port: config.GATEWAY_PORT };
  }
  if (service === 'tracker') {
    const config = loadConfig(parseTrackerConfig);
    return { host: config.TRACKER_HOST, port: config.TRACKER_HTTP_PORT };
  }
  return null;
}

const target = listenAddress(process.argv[2]);
if (!target) {
  process.stderr.write('usage: healthcheck gateway|tracker\n');
  process.exit(2);
}
// A service listening on every address answers on loopback.
const host = target.host === '0.0.0.0' || target.host === '::' ? '127.0.0.1' : target.host;
const url = `http://${host.includes(':') ? `[${host}]` : host}:${target.port}/healthz`;
fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) }).then(
  (res) => process.exit(res.status === 200 ? 0 : 1),
  () => process.exit(1),
);
