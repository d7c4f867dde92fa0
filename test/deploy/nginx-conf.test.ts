// nginx.conf against the product's own numbers and catalogue: the body cap equals the gateway's,
// proxy timeouts outlast the gateway's upstream timeout, every error nginx answers itself is the
// API's { error, code } with a code from shared/errors.ts, and nothing logged carries a query string.
// nginx-stream.conf: every device port balanced by connection count with the PROXY protocol, idle
// longer than the trackers. (test/e2e/nginx-tls.test.ts and nginx-stream.test.ts run them on a real nginx.)
import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { MAX_BODY_BYTES } from '../../gateway/body-limit.js';
import { parseConfig, PROTOCOL_PORTS } from '../../shared/config.js';
import { catalogue } from '../../shared/errors.js';
import { NGINX_CONF, NGINX_STREAM_CONF } from '../helpers/nginx.js';

const withoutComments = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => !line.trim().startsWith('#'))
    .join('\n');
const conf = withoutComments(NGINX_CONF);
const stream = withoutComments(NGINX_STREAM_CONF);

/** The values of a directive, every time it appears. */
const directive = (name: string) => [...conf.matchAll(new RegExp(`^\\s*${name}\\s+([^;]+);`, 'gm'))].map((m) => m[1]!.trim());

const SIZE = { k: 1024, m: 1024 * 1024 } as const;
const seconds = (v: string) => Number(/^(\d+)s$/.exec(v)![1]);

describe('nginx.conf', () => {
  test('refuses exactly the bodies the gateway refuses', () => {
    const [value] = directive('client_max_body_size');
    const [, n, unit] = /^(\d+)([km])$/.exec(value!)!;
    expect(Number(n) * SIZE[unit as 'k' | 'm']).toBe(MAX_BODY_BYTES);
  });

  test('waits longer for the gateway than the gateway waits for the tracker', () => {
    const upstreamTimeout = parseConfig({}).UPSTREAM_TIMEOUT_MS / 1000;
    for (const name of ['proxy_read_timeout', 'proxy_send_timeout']) {
      expect(seconds(directive(name)[0]!)).toBeGreaterThan(upstreamTimeout);
    }
  });

  test('answers every error of its own with a JSON body from the error catalogue', () => {
    const pages = directive('error_page').map((v) => v.split(/\s+/));
    const handled = pages.flatMap((p) => p.filter((x) => /^\d{3}$/.test(x)));
    expect(handled).toEqual(expect.arrayContaining(['400', '404', '413', '414', '500', '502', '503', '504']));
    for (const target of pages.map((p) => p[p.length - 1]!)) {
      const block = new RegExp(`location ${target} \\{\\s*default_type application/json;\\s*return \\d{3} '([^']*)\\\\n';\\s*\\}`).exec(conf);
      expect(block).not.toBeNull();
      const parsed = JSON.parse(block![1]!) as { error: unknown; code: string };
      expect(typeof parsed.error).toBe('string');
      expect(Object.keys(catalogue)).toContain(parsed.code);
    }
  });

  test('never logs a query string or a Referer, and keeps the error log to critical messages', () => {
    const format = /log_format fleet escape=json([^;]+);/.exec(conf)![1]!;
    expect(format).toContain('$uri');
    for (const variable of ['$request_uri', '$args', '$query_string', '$arg_', '$http_referer']) expect(format).not.toContain(variable);
    expect(format).not.toMatch(/\$request\b(?!_)/); // the request line ($request_time is fine)
    expect(directive('access_log')).toEqual(['${NGINX_ACCESS_LOG} fleet']);
    expect(directive('error_log')).toEqual(['stderr crit']);
  });

  test('speaks TLS 1.2 and 1.3 only, and sends HSTS on every answer', () => {
    expect(directive('ssl_protocols')).toEqual(['TLSv1.2 TLSv1.3']);
    expect(directive('add_header')).toEqual(['Strict-Transport-Security "max-age=63072000" always']);
  });
});

describe('nginx-stream.conf', () => {
  test('balances every device port over the re-resolved trackers by connection count', () => {
    const servers = [...stream.matchAll(/server \{\s*listen (\d+);\s*proxy_pass (\w+);\s*\}/g)].map((m) => [Number(m[1]), m[2]!] as const);
    expect(servers.map(([port]) => port).sort()).toEqual([5000, 5055, ...Object.values(PROTOCOL_PORTS)].sort());
    for (const [port, upstream] of servers) {
      const block = new RegExp(`upstream ${upstream} \\{\\s*least_conn;\\s*zone ${upstream} \\d+k;\\s*server \\$\\{NGINX_TRACKER\\}:(\\d+) resolve;\\s*\\}`).exec(stream);
      expect([port, block?.[1]]).toEqual([port, String(port)]);
    }
    expect(stream).toMatch(/resolver \$\{NGINX_RESOLVER\} valid=10s/);
  });

  test('tells the trackers each device address, and outlasts their idle timeout', () => {
    expect(stream).toMatch(/^\s*proxy_protocol on;/m);
    const [, minutes] = /proxy_timeout (\d+)m;/.exec(stream)!;
    expect(Number(minutes) * 60).toBeGreaterThan(parseConfig({}).DEVICE_TIMEOUT_SECONDS);
  });

  test('nginx.conf includes it, and re-resolves the gateways too', () => {
    expect(conf).toMatch(/^include stream\.d\/\*\.conf;/m);
    expect(conf).toMatch(/upstream gateway \{\s*zone gateway \d+k;\s*server \$\{NGINX_GATEWAY\};/);
    expect(conf).toMatch(/resolver \$\{NGINX_RESOLVER\} valid=10s/);
  });
});
