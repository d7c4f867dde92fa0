// docker-compose.yml as Docker Compose reads it (`docker-compose config`, Debian's package; CI
// installs it), checked against the product: every setting wired, ports, start-up order by health,
// stop grace periods longer than the services' own shutdown deadline, nginx's templates filled in;
// and with docker-compose.scale.yml over it, a deployment whose replicas can be scaled.
import { beforeAll, describe, expect, test } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { PROTOCOL_PORTS, portSetting, SETTING_NAMES } from '../../shared/config.js';
import { findProgram, NGINX_CONF, NGINX_STREAM_CONF } from '../helpers/nginx.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const compose = findProgram('docker-compose');
if (!compose) process.stderr.write('compose.test.ts skipped: docker-compose is not installed (apt-get install docker-compose)\n');
const suite = compose ? describe : describe.skip;

const REQUIRED = { GATEWAY_SECRET: 'a-gateway-secret-of-at-least-32-characters', POSTGRES_PASSWORD: 'pw', PUBLIC_BASE_URL: 'https://fleet.example.com' };

function config(env: Record<string, string>, files = ['docker-compose.yml']) {
  // Only what the test gives: no variable of this machine may leak into the interpolation.
  return spawnSync(compose!, [...files.flatMap((f) => ['-f', f]), 'config'], { cwd: ROOT, env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' });
}

interface Service {
  image?: string;
  command?: string[];
  profiles?: string[];
  networks?: Record<string, unknown>;
  environment: Record<string, string>;
  ports?: (string | { target: number; published: number })[];
  expose?: string[];
  depends_on?: Record<string, { condition: string }>;
  stop_grace_period?: string;
  secrets?: { source: string }[];
  volumes?: (string | { source: string; target: string; type: string })[];
}

/** A mount as `source:target`, whichever form (short string or long object) Compose prints. */
const mount = (v: string | { source: string; target: string }) => (typeof v === 'string' ? v.replace(/:(rw|ro)$/, '') : `${v.source}:${v.target}`);

/** Published ports as `published:target` (a host address kept in front), whichever form Compose prints. */
const published = (s: Service) => (s.ports ?? []).map((p) => (typeof p === 'string' ? p.replace(/\/tcp$/, '') : `${p.published}:${p.target}`)).sort();

/** The shared device port, OsmAnd's, and every protocol's own port at Traccar's number. */
const DEVICE_PORTS = [5000, 5055, ...Object.values(PROTOCOL_PORTS)];

suite('docker-compose.yml', () => {
  let run: ReturnType<typeof config>;
  let file: { services: Record<string, Service>; volumes: Record<string, unknown> };
  let services: Record<string, Service>;
  beforeAll(() => {
    run = config(REQUIRED);
    file = parse(run.stdout) as typeof file;
    services = file?.services ?? {};
  });

  test('passes `docker-compose config`', () => {
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(Object.keys(services).sort()).toEqual(['gateway', 'nginx', 'postgres', 'prometheus', 'redis', 'tracker']);
    expect(services.prometheus!.profiles).toEqual(['monitoring']);
  });

  test('refuses to start without the secrets it cannot default', () => {
    for (const name of Object.keys(REQUIRED)) {
      const { [name]: _left, ...rest } = REQUIRED as Record<string, string>;
      const r = config(rest);
      expect(r.status).not.toBe(0);
      expect(r.stderr).toContain(name);
    }
  });

  test('wires every setting of shared/config.ts into the gateway or the tracker', () => {
    const wired = new Set([...Object.keys(services.gateway!.environment), ...Object.keys(services.tracker!.environment)]);
    expect(SETTING_NAMES.filter((name) => !wired.has(name))).toEqual([]);
  });

  test('publishes nginx alone, on 80/443 and the device ports; the APIs and metrics stay internal', () => {
    expect(published(services.nginx!)).toEqual(['443:443', '80:80', ...DEVICE_PORTS.map((p) => `${p}:${p}`)].sort());
    const env = services.tracker!.environment;
    expect([env.DEVICE_PORT, env.OSMAND_PORT]).toEqual(['5000', '5055']);
    for (const [name, port] of Object.entries(PROTOCOL_PORTS)) expect([name, env[portSetting(name)]]).toEqual([name, String(port)]);
    // Nothing a replica publishes, so `--scale` never collides; Prometheus's UI on this host alone.
    for (const name of ['gateway', 'tracker', 'postgres', 'redis']) expect(services[name]!.ports).toBeUndefined();
    expect(published(services.prometheus!)).toEqual(['127.0.0.1:9090:9090']);
    expect(services.gateway!.expose).toEqual(expect.arrayContaining([services.gateway!.environment.GATEWAY_PORT, services.gateway!.environment.GATEWAY_METRICS_PORT]));
    expect(services.tracker!.expose).toEqual(expect.arrayContaining([env.TRACKER_HTTP_PORT, env.TRACKER_METRICS_PORT]));
  });

  test('starts in order of health: postgres → tracker → gateway (and redis) → nginx', () => {
    const healthy = { condition: 'service_healthy' };
    expect(services.tracker!.depends_on).toEqual({ postgres: healthy });
    expect(services.gateway!.depends_on).toEqual({ tracker: healthy, redis: healthy });
    expect(services.nginx!.depends_on).toEqual({ gateway: healthy });
  });

  test('lets each service finish its graceful stop before Docker kills it', () => {
    for (const name of ['gateway', 'tracker']) {
      const grace = /^(\d+)s$/.exec(services[name]!.stop_grace_period ?? '');
      expect(grace).not.toBeNull();
      // The process's own deadline, plus its last-resort margin and some room.
      expect(Number(grace![1])).toBeGreaterThanOrEqual(Number(services[name]!.environment.SHUTDOWN_TIMEOUT_SECONDS) + 5);
    }
  });

  test('connects the services as the product expects', () => {
    const gateway = services.gateway!.environment;
    const tracker = services.tracker!.environment;
    expect(gateway.TRUST_PROXY_HOPS).toBe('1'); // nginx
    expect(gateway.TRACKER_URL).toBe(`http://tracker:${tracker.TRACKER_HTTP_PORT}`);
    expect(tracker.TRACKER_HOST).toBe('0.0.0.0');
    expect(gateway.GATEWAY_SECRET).toBe(tracker.GATEWAY_SECRET);
    expect(tracker.DATABASE_URL).toBe(`postgres://fleet:${REQUIRED.POSTGRES_PASSWORD}@postgres:5432/fleet`);
    expect(gateway.REDIS_URL).toBe('redis://redis:6379');
    // nginx: every gateway replica for the API, every tracker replica for the device ports (with the
    // PROXY protocol the trackers expect), both looked up again through Docker's DNS.
    const nginx = services.nginx!.environment;
    expect(nginx.NGINX_GATEWAY).toBe(`gateway:${gateway.GATEWAY_PORT} resolve`);
    expect([nginx.NGINX_TRACKER, nginx.NGINX_RESOLVER]).toEqual(['tracker', '127.0.0.11']);
    expect(tracker.DEVICE_PROXY_PROTOCOL).toBe('true');
    expect(Object.keys(services.nginx!.networks!).sort()).toEqual(['edge', 'internal']);
    expect(Object.keys(services.prometheus!.networks!)).toEqual(['internal']);
    // The private key is the tracker's alone; the gateway can verify tokens, never mint them.
    expect(services.gateway!.secrets!.map((s) => s.source)).toEqual(['jwt_public_key']);
    expect(gateway.JWT_PRIVATE_KEY).toBeUndefined();
    expect(services.tracker!.secrets!.map((s) => s.source).sort()).toEqual(['jwt_private_key', 'jwt_public_key']);
    expect(tracker.DEMO).toBe('false');
  });

  test('keeps the database on a named volume', () => {
    expect((services.postgres!.volumes ?? []).map(mount)).toEqual(['pgdata:/var/lib/postgresql/data']);
    expect(Object.keys(file.volumes).sort()).toEqual(['pgdata', 'prometheus']);
  });

  test("gives nginx's templates a value for every placeholder", () => {
    const templates = readFileSync(NGINX_CONF, 'utf8') + readFileSync(NGINX_STREAM_CONF, 'utf8');
    const placeholders = [...new Set([...templates.matchAll(/\$\{(NGINX_[A-Z_]+)\}/g)].map((m) => m[1]!))];
    const env = services.nginx!.environment;
    expect(placeholders.filter((p) => env[p] === undefined)).toEqual([]);
    // The image renders /etc/nginx/templates/*.template into NGINX_ENVSUBST_OUTPUT_DIR.
    expect(env.NGINX_ENVSUBST_OUTPUT_DIR).toBe('/etc/nginx');
    // Subfolders are kept: the stream block lands in /etc/nginx/stream.d/, which nginx.conf includes.
    expect((services.nginx!.volumes ?? []).map(mount)).toEqual(
      expect.arrayContaining([`${NGINX_CONF}:/etc/nginx/templates/nginx.conf.template`, `${NGINX_STREAM_CONF}:/etc/nginx/templates/stream.d/devices.conf.template`]),
    );
  });
});

suite('docker-compose.scale.yml over docker-compose.yml', () => {
  let run: ReturnType<typeof config>;
  let services: Record<string, Service>;
  beforeAll(() => {
    run = config(REQUIRED, ['docker-compose.yml', 'docker-compose.scale.yml']);
    services = (parse(run.stdout) as { services: Record<string, Service> } | null)?.services ?? {};
  });

  test('passes `docker-compose config`', () => {
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  test('leaves nothing a replica would publish: only nginx (and Prometheus on loopback) take host ports', () => {
    for (const [name, service] of Object.entries(services)) if (!['nginx', 'prometheus'].includes(name)) expect([name, service.ports]).toEqual([name, undefined]);
    expect(services.tracker!.environment.DEVICE_PROXY_PROTOCOL).toBe('true');
  });

  test('sizes PostgreSQL for many trackers; the gateways reach every tracker replica by the service name', () => {
    const max = Number(/^max_connections=(\d+)$/.exec(services.postgres!.command!.at(-1)!)![1]);
    expect(max).toBeGreaterThanOrEqual(10 * 11); // ten trackers of 11 connections each
    expect(services.gateway!.environment.TRACKER_URL).toBe(`http://tracker:${services.tracker!.environment.TRACKER_HTTP_PORT}`);
  });
});
