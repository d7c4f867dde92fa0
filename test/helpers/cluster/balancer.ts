// nginx as the scaled deployment's balancer, on the machine's nginx with its own prefix: an http
// block spreading the API over the gateways and the trackers' HTTP over the trackers (what gateways
// reach while they take one TRACKER_URL), and a stream block spreading device connections over the
// trackers (least_conn), plus one device port pinned to each tracker, so a test can place a device
// on a chosen tracker through the same path. With proxyProtocol every device connection reaches the
// tracker behind a PROXY protocol header, as `proxy_protocol on;` sends it.
import { chmodSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findProgram, runNginx } from '../nginx.js';
import { freePort } from '../ports.js';

/** Where Debian's libnginx-mod-stream puts the stream module (nginx is built with it dynamic). */
export const STREAM_MODULE = '/usr/lib/nginx/modules/ngx_stream_module.so';

/** Why nginx cannot balance here (nginx or its stream module missing), or null when it can. */
export function balancerMissing(): string | null {
  if (!findProgram('nginx')) return 'nginx is not installed (apt-get install nginx)';
  if (!existsSync(STREAM_MODULE)) return `nginx's stream module is not installed (apt-get install libnginx-mod-stream)`;
  return null;
}

export interface BalancerPorts {
  /** The public API: nginx → gateways. */
  api: number;
  /** The device port: nginx stream → trackers, least_conn. */
  devices: number;
  /** One device port per tracker, in the trackers' order, each reaching only that tracker. */
  pinnedDevices: number[];
}

export interface Balancer {
  ports: BalancerPorts;
  /** nginx's error log (stderr) so far. */
  errorLog(): string;
  stop(): Promise<void>;
}

export interface BalancerUpstreams {
  gateways: number[];
  trackerDevices: number[];
  proxyProtocol: boolean;
}

/** Picks the balancer's ports ahead, so gateways can be started pointing at it before nginx runs. */
export async function pickBalancerPorts(trackers: number): Promise<BalancerPorts> {
  const pinnedDevices: number[] = [];
  for (let i = 0; i < trackers; i++) pinnedDevices.push(await freePort());
  return { api: await freePort(), devices: await freePort(), pinnedDevices };
}

/** A dead upstream is passed over for fail_timeout after one failure; the request goes to the next. */
const servers = (ports: number[]) => ports.map((p) => `server 127.0.0.1:${p} max_fails=1 fail_timeout=5s;`).join(' ');

function httpProxy(port: number, upstream: string): string {
  return `server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://${upstream};
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_buffering off;
      proxy_connect_timeout 2s;
      proxy_read_timeout 1h;
      proxy_next_upstream error timeout;
    }
  }`;
}

export function balancerConf(prefix: string, ports: BalancerPorts, up: BalancerUpstreams): string {
  const proxyProtocol = `proxy_protocol ${up.proxyProtocol ? 'on' : 'off'};`;
  const pinned = up.trackerDevices.map(
    (p, i) => `server { listen 127.0.0.1:${ports.pinnedDevices[i]}; proxy_pass 127.0.0.1:${p}; ${proxyProtocol} }`,
  );
  return `load_module ${STREAM_MODULE};
worker_processes 1;
worker_rlimit_nofile 8192;
error_log stderr warn;
events { worker_connections 4096; }
http {
  client_body_temp_path client_body_temp;
  proxy_temp_path proxy_temp;
  fastcgi_temp_path fastcgi_temp;
  uwsgi_temp_path uwsgi_temp;
  scgi_temp_path scgi_temp;
  access_log off;
  upstream gateways { ${servers(up.gateways)} keepalive 32; }
  ${httpProxy(ports.api, 'gateways')}
}
stream {
  upstream devices { least_conn; ${servers(up.trackerDevices)} }
  server { listen 127.0.0.1:${ports.devices}; proxy_pass devices; proxy_connect_timeout 2s; ${proxyProtocol} }
  ${pinned.join('\n  ')}
}
`;
}

export async function startBalancer(ports: BalancerPorts, upstreams: BalancerUpstreams): Promise<Balancer> {
  const missing = balancerMissing();
  if (missing) throw new Error(missing);
  const nginx = findProgram('nginx')!;
  const prefix = mkdtempSync(join(tmpdir(), 'fleet-balancer-'));
  chmodSync(prefix, 0o755); // workers run as `nobody` when nginx starts as root
  writeFileSync(join(prefix, 'nginx.conf'), balancerConf(prefix, ports, upstreams));
  const { errorLog, stop } = await runNginx(nginx, prefix, [ports.devices, ports.api]);
  return { ports, errorLog, stop };
}
