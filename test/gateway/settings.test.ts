// Each service reads only its own settings: a real gateway process starts and serves whatever the
// tracker-only settings say, and still stops with one clear line on a bad gateway setting.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { parseConfig, parseGatewayConfig, parseTrackerConfig } from '../../shared/config.js';
import { gatewaySettings } from '../helpers/gateway.js';
import { startService, stopAllServices } from '../helpers/processes.js';
import { startStandInTracker, type StandInTracker } from '../helpers/stand-in-tracker.js';

/** Bad values for settings only the tracker reads. */
const BAD_TRACKER_SETTINGS = { DEVICE_PORT: '70000', DATABASE_URL: 'mysql://user:hunter2@db/x', POSITION_MAX_FUTURE: 'soon', DEVICE_TAKEOVER: 'both' };

let tracker: StandInTracker;

beforeAll(async () => {
  tracker = await startStandInTracker();
});

afterAll(async () => {
  await stopAllServices();
  await tracker.close();
});

describe('per-service settings', () => {
  test('a gateway started with bad tracker-only settings starts and serves', async () => {
    const env = { ...gatewaySettings(tracker), ...BAD_TRACKER_SETTINGS, GATEWAY_PORT: '0', GATEWAY_HOST: '127.0.0.1' };
    const gateway = await startService('gateway/main.ts', env);
    const res = await fetch(`http://127.0.0.1:${gateway.port}/healthz`);
    expect(res.status).toBe(200);
    await gateway.stop();
  }, 30_000);

  test('a gateway with a bad gateway setting stops at once with one line naming it', () => {
    const { NODE_OPTIONS: _jestOptions, ...inherited } = process.env;
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'gateway/main.ts'], {
      env: { ...inherited, ...gatewaySettings(tracker), ...BAD_TRACKER_SETTINGS, RATE_LIMIT_READ_PER_MINUTE: '0' },
      encoding: 'utf8',
    });
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual(['Invalid setting RATE_LIMIT_READ_PER_MINUTE="0": must be at least 1']);
    expect(r.stdout).toBe('');
  });

  test('the tracker reads its settings alone; `npm start`, which runs both, reads them all', () => {
    expect(() => parseTrackerConfig({ TRUST_PROXY_HOPS: '99', RATE_LIMIT_PREFIX: 'no spaces' })).not.toThrow();
    expect(() => parseTrackerConfig({ DEVICE_PORT: '70000' })).toThrow('Invalid setting DEVICE_PORT="70000": must be at most 65535');
    expect(parseGatewayConfig({ DEVICE_PORT: '70000' })).not.toHaveProperty('DEVICE_PORT');
    expect(() => parseConfig({ DEVICE_PORT: '70000' })).toThrow('DEVICE_PORT');
    expect(() => parseConfig({ TRUST_PROXY_HOPS: '99' })).toThrow('TRUST_PROXY_HOPS');
  });
});
