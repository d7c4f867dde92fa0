// nginx.conf against the product's own numbers and catalogue: the body cap equals the gateway's,
// proxy timeouts outlast the gateway's upstream timeout, every error nginx answers itself is the
// API's { error, code } with a code from shared/errors.ts, and nothing logged carries a query string.
// (test/e2e/nginx-tls.test.ts runs the file on a real nginx.)
import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { MAX_BODY_BYTES } from '../../gateway/body-limit.js';
import { parseConfig } from '../../shared/config.js';
import { catalogue } from '../../shared/errors.js';
import { NGINX_CONF } from '../helpers/nginx.js';

const conf = readFileSync(NGINX_CONF, 'utf8')
  .split('\n')
  .filter((line) => !line.trim().startsWith('#'))
  .join('\n');

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
