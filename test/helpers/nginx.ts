// The project's nginx.conf on the machine's nginx, as the nginx image runs it: the NGINX_*
// placeholders filled in, in the foreground, here as the current user with its own prefix, pid and
// log files; optionally with nginx-stream.conf in front of trackers on this machine. Also a
// throwaway CA and server certificate made with openssl.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { accessSync, chmodSync, constants, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './ports.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const NGINX_CONF = join(ROOT, 'nginx.conf');
export const NGINX_STREAM_CONF = join(ROOT, 'nginx-stream.conf');

/** A program's path on PATH or in the sbin directories (nginx lives in /usr/sbin on Debian), or null. */
export function findProgram(name: string): string | null {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/sbin', '/usr/local/sbin'];
  for (const dir of dirs.filter(Boolean)) {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      // not here
    }
  }
  return null;
}

/** The template with every ${NGINX_…} placeholder filled in, as envsubst does in the nginx image. */
export function renderNginxConf(values: Record<string, string>, template = readFileSync(NGINX_CONF, 'utf8')): string {
  return template.replace(/\$\{(NGINX_[A-Z_]+)\}/g, (_m, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`nginx.conf: no value for ${name}`);
    return value;
  });
}

export interface Certificates {
  /** The CA certificate a client must trust. */
  caPem: string;
  certFile: string;
  keyFile: string;
}

/** A throwaway CA and a server certificate it signed for localhost and 127.0.0.1 (ECDSA P-256). */
export function makeCertificates(dir: string): Certificates {
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=Fleet test CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  openssl('req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
  writeFileSync(join(dir, 'server.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n');
  openssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '2', '-extfile', 'server.ext');
  return { caPem: readFileSync(join(dir, 'ca.pem'), 'utf8'), certFile: join(dir, 'server.pem'), keyFile: join(dir, 'server.key') };
}

/** Debian's nginx builds stream {} as a module, loaded by its packaged nginx.conf; the image's has it built in. */
const DEBIAN_STREAM_MODULE = '/usr/lib/nginx/modules/ngx_stream_module.so';

/**
 * nginx-stream.conf for trackers on this machine: each device port listens on `listen[name]`
 * instead of its fixed number, and balances over the trackers' own ports for it (their
 * `ingest.ports`, by listener name) instead of the re-resolved Compose service name, which Debian's
 * older nginx cannot resolve at run time.
 */
export function localStreamConf(trackers: Record<string, number>[], listen: Record<string, number>, template = readFileSync(NGINX_STREAM_CONF, 'utf8')): string {
  const conf = renderNginxConf({ NGINX_TRACKER: 'TRACKER', NGINX_RESOLVER: '127.0.0.1' }, template);
  const upstreams = conf.replace(/(upstream tracker_(\w+) \{[^}]*?)server TRACKER:\d+ resolve;/g, (_m, head: string, name: string) => {
    if (trackers.some((t) => t[name] === undefined)) throw new Error(`nginx-stream.conf: no tracker port for ${name}`);
    return head + trackers.map((t) => `server 127.0.0.1:${t[name]};`).join(' ');
  });
  return upstreams.replace(/listen \d+;(\s*)proxy_pass tracker_(\w+);/g, (_m, space: string, name: string) => `listen ${listen[name]};${space}proxy_pass tracker_${name};`);
}

export interface Nginx {
  httpPort: number;
  httpsPort: number;
  /** With `trackers`: nginx's port for each device listener, by name (device, osmand, gt06…). */
  devicePorts: Record<string, number>;
  /** The access log's text so far. */
  accessLog(): string;
  /** nginx's stderr (its error log) so far. */
  errorLog(): string;
  stop(): Promise<void>;
}

export function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

/**
 * Starts nginx with the project's nginx.conf in front of the gateway at host:port, and with
 * `trackers` (each one's ingest.ports) nginx-stream.conf's device ports in front of them.
 */
export async function startNginx(opts: { nginx: string; gateway: string; certificates: Certificates; trackers?: Record<string, number>[] }): Promise<Nginx> {
  const prefix = mkdtempSync(join(tmpdir(), 'fleet-nginx-'));
  chmodSync(prefix, 0o755); // run as root, nginx's workers are `nobody`: they need their temp dirs
  const [httpPort, httpsPort] = [await freePort(), await freePort()];
  const accessLog = join(prefix, 'access.log');
  let conf = renderNginxConf({
    NGINX_HTTP_PORT: String(httpPort),
    NGINX_HTTPS_PORT: String(httpsPort),
    NGINX_SERVER_NAME: 'localhost',
    NGINX_GATEWAY: opts.gateway,
    NGINX_RESOLVER: '127.0.0.1', // only names marked `resolve` use it: none here
    NGINX_CERT: opts.certificates.certFile,
    NGINX_CERT_KEY: opts.certificates.keyFile,
    NGINX_ACCESS_LOG: accessLog,
  });
  const devicePorts: Record<string, number> = {};
  if (opts.trackers) {
    for (const name of Object.keys(opts.trackers[0]!)) devicePorts[name] = await freePort();
    mkdirSync(join(prefix, 'stream.d'));
    writeFileSync(join(prefix, 'stream.d', 'devices.conf'), localStreamConf(opts.trackers, devicePorts));
    if (existsSync(DEBIAN_STREAM_MODULE)) conf = `load_module ${DEBIAN_STREAM_MODULE};\n${conf}`;
  }
  writeFileSync(join(prefix, 'nginx.conf'), conf);
  const { errorLog, stop } = await runNginx(opts.nginx, prefix, [httpsPort]);
  return {
    httpPort,
    httpsPort,
    devicePorts,
    accessLog: () => {
      try {
        return readFileSync(accessLog, 'utf8');
      } catch {
        return '';
      }
    },
    errorLog,
    stop,
  };
}

/**
 * Runs nginx in the foreground with `prefix`/nginx.conf, its error log on stderr, until each of
 * `ports` accepts (at most 10 s); stop() ends it and removes the prefix.
 */
export async function runNginx(nginx: string, prefix: string, ports: number[]): Promise<{ errorLog(): string; stop(): Promise<void> }> {
  const child: ChildProcess = spawn(nginx, ['-p', `${prefix}/`, '-c', join(prefix, 'nginx.conf'), '-e', 'stderr', '-g', `daemon off; pid ${join(prefix, 'nginx.pid')};`], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(prefix, { recursive: true, force: true });
  };
  for (const deadline = Date.now() + 10_000; !(await Promise.all(ports.map(accepts))).every(Boolean); await new Promise((r) => setTimeout(r, 50))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`nginx did not start:\n${stderr}`);
    }
  }
  return { errorLog: () => stderr, stop };
}
