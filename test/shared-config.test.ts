// Settings: defaults, and one clear line naming the variable for every bad value.
import { describe, expect, test } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { parseConfig } from '../shared/config.js';

describe('settings', () => {
  test('defaults match the design', () => {
    const c = parseConfig({});
    expect(c).toMatchObject({ GATEWAY_PORT: 8080, TRACKER_HTTP_PORT: 8081, DEVICE_PORT: 5000, GT06_PORT: 5023, TELTONIKA_PORT: 5027, H02_PORT: 5013, OSMAND_PORT: 5055, UPSTREAM_TIMEOUT_MS: 10000, DATA_DIR: './data', TRACKER_URL: 'http://127.0.0.1:8081' });
    expect(c.DATABASE_URL).toBeUndefined();
    expect(c.WEBHOOK_ALLOW_HTTP).toBe(false);
    expect(c.DEVICE_PROXY_PROTOCOL).toBe(false);
    expect(c).toMatchObject({ PUBLIC_BASE_URL: 'http://localhost:8080', RATE_LIMIT_INBOUND_PER_MINUTE: 120, RATE_LIMIT_INBOUND_REFUSED_PER_MINUTE: 30, INBOUND_LOG_RETENTION_DAYS: 30, INBOUND_LOG_MAX_CALLS: 1000 });
  });

  test.each([
    ['GATEWAY_PORT', 'http', /GATEWAY_PORT="http": expected a whole number/],
    ['DEVICE_PORT', '70000', /DEVICE_PORT="70000": must be at most 65535/],
    ['RATE_LIMIT_ON_STORE_ERROR', 'maybe', /allowed values are open, closed/],
    ['DEMO', 'yes', /DEMO="yes": allowed values/],
    ['DEVICE_PROXY_PROTOCOL', 'on', /DEVICE_PROXY_PROTOCOL="on": allowed values/],
    ['TRACKER_URL', 'tracker', /TRACKER_URL="tracker": expected an absolute URL/],
    ['DATABASE_URL', 'mysql://u:pw@db/x', /DATABASE_URL=\(hidden\)/],
    ['GATEWAY_SECRET', 'short', /GATEWAY_SECRET=\(hidden\): must be at least 32 characters/],
    ['INBOUND_LOG_MAX_CALLS', '5', /INBOUND_LOG_MAX_CALLS="5": must be at least 10/],
    ['RATE_LIMIT_INBOUND_REFUSED_PER_MINUTE', '0', /RATE_LIMIT_INBOUND_REFUSED_PER_MINUTE="0": must be at least 1/],
    ['PUBLIC_BASE_URL', 'fleet.example.com', /PUBLIC_BASE_URL="fleet.example.com": expected an absolute URL/],
    ['MAP_TILE_URL', 'tile.openstreetmap.org/{z}/{x}/{y}.png', /MAP_TILE_URL=.*: expected a URL such as https:\/\/tile.openstreetmap.org/],
    ['MAP_TILE_URL', 'ftp://tiles.example.com/{z}/{x}/{y}.png', /MAP_TILE_URL=.*: expected an http:\/\/ or https:\/\/ URL/],
    ['MAP_TILE_URL', 'https://tiles.example.com/{z}/{x}.png', /MAP_TILE_URL=.*: must hold the \{z\}, \{x\} and \{y\} placeholders/],
    ['MAP_TILE_URL', 'https://user:pw@tiles.example.com/{z}/{x}/{y}.png', /MAP_TILE_URL=.*: must not carry a user name or password/],
    ['MAP_TILE_URL', 'https://tiles.{s}.example.com/{z}/{x}/{y}.png', /MAP_TILE_URL=.*: the host may hold \{s\} only as its first label/],
    ['MAP_ATTRIBUTION', '© <script>alert(1)</script>', /MAP_ATTRIBUTION=.*: expected text with optional <a href="https:\/\/…">links<\/a> only/],
    ['MAP_ATTRIBUTION', '<a href="javascript:alert(1)">x</a>', /MAP_ATTRIBUTION=.*: expected text with optional/],
    ['MAP_ATTRIBUTION', '<a href="https://x.example" onclick="alert(1)">x</a>', /MAP_ATTRIBUTION=.*: expected text with optional/],
  ])('%s=%s is refused with a clear message', (name, value, message) => {
    expect(() => parseConfig({ [name]: value })).toThrow(message);
  });

  test('the map: OpenStreetMap by default; another tile server with its attribution links', () => {
    expect(parseConfig({})).toMatchObject({
      MAP_TILE_URL: 'https://tile.openstreetmap.org/{z}/{x}/{y}.png',
      MAP_ATTRIBUTION: '&copy; <a href="https://www.openstreetmap.org/copyright">OpenStreetMap</a> contributors',
    });
    const carto = { MAP_TILE_URL: 'https://{s}.basemaps.cartocdn.com/light_all/{z}/{x}/{y}{r}.png', MAP_ATTRIBUTION: '&copy; <a href="https://www.openstreetmap.org/copyright">OpenStreetMap</a> &copy; <a href="https://carto.com/attributions">CARTO</a>' };
    expect(parseConfig(carto)).toMatchObject(carto);
  });

  test('a bad value stops a service with one line on stderr, secrets not echoed', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'tracker/main.ts'], {
      env: { PATH: process.env.PATH, DATABASE_URL: 'mysql://user:hunter2@db/x' },
      encoding: 'utf8',
    });
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual(['Invalid setting DATABASE_URL=(hidden): a postgres:// or postgresql:// connection string']);
    expect(r.stdout).toBe('');
  });
});
