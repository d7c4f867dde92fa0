// The gateway benchmark's fourth configuration: nginx proxying the same upstream over keep-alive
// connections, nothing else (no access log), as one single-threaded process like the Node servers,
// so its CPU per request is the proxy limit of this machine.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { accepts, findProgram } from '../test/helpers/nginx.js';
import { freePort } from '../test/helpers/ports.js';

export interface BenchNginx {
  port: number;
  pid: number;
  stop(): void;
}

function config(prefix: string, port: number, upstreamPort: number): string {
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((name) => `${name}_temp_path ${join(prefix, name)};`).join(' ');
  return `master_process off;
daemon off;
error_log stderr warn;
pid ${join(prefix, 'nginx.pid')};
events { worker_connections 1024; }
http {
  access_log off;
  # A client connection is not closed after nginx's default 1,000 requests: autocannon, reconnecting
  # at that moment, counted a request or two of the round as errors.
  keepalive_requests 1000000;
  ${temp}
  upstream tracker { server 127.0.0.1:${upstreamPort}; keepalive 64; }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://tracker;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }
  }
}
`;
}

/** Starts nginx in front of the upstream; null when nginx is not installed. */
export async function startBenchNginx(upstreamPort: number): Promise<BenchNginx | null> {
  const nginx = findProgram('nginx');
  if (!nginx) return null;
  const prefix = mkdtempSync(join(tmpdir(), 'bench-nginx-'));
  const port = await freePort();
  writeFileSync(join(prefix, 'nginx.conf'), config(prefix, port, upstreamPort));
  const child = spawn(nginx, ['-p', `${prefix}/`, '-c', join(prefix, 'nginx.conf'), '-e', 'stderr'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const stop = () => {
    child.kill('SIGTERM');
    rmSync(prefix, { recursive: true, force: true });
  };
  for (const deadline = Date.now() + 10_000; !(await accepts(port)); await new Promise((r) => setTimeout(r, 50))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      stop();
      throw new Error(`nginx did not start:\n${stderr}`);
    }
  }
  return { port, pid: child.pid!, stop };
}
