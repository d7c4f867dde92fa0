// The pure rules of webhook delivery: forbidden addresses, the retry schedule and Retry-After, the
// signature (checked with the standardwebhooks library integrators use), the settings.
import { describe, expect, test } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import { parseConfig } from '../../shared/config.js';
import { parseRetryAfter, retryDelay } from '../../tracker/webhooks/schedule.js';
import { newSecret, signatureHeaders } from '../../tracker/webhooks/signing.js';
import { isForbiddenAddress } from '../../tracker/webhooks/ssrf.js';

describe('forbidden addresses', () => {
  test.each([
    '127.0.0.1', '127.8.9.10', '10.0.0.1', '10.255.255.255', '172.16.0.1', '172.31.255.254', '192.168.1.1', '100.64.0.1', '100.127.255.255',
    '169.254.169.254', '169.254.1.1', '0.0.0.0', '255.255.255.255', '224.0.0.1',
    '::1', '::', 'fc00::1', 'fd00:ec2::254', 'fe80::1', 'ff02::1',
    '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:a9fe:a9fe', '::127.0.0.1',
    // IPv4 carried inside IPv6: SIIT, IPv4-compatible in hex, NAT64, local-use NAT64, 6to4, Teredo (server, and client xor'ed)
    '::ffff:0:7f00:1', '::ffff:0:127.0.0.1', '::ffff:0:a9fe:a9fe', '::7f00:1', '0:0:0:0:0:ffff:7f00:1',
    '64:ff9b::7f00:1', '64:ff9b::10.0.0.1', '64:ff9b::a9fe:a9fe', '64:ff9b:1::5db8:d822', '64:ff9b:1:abcd::1',
    '2002:7f00:1::', '2002:a9fe:a9fe::1', '2002:c0a8:101::',
    '2001:0:7f00:1::1', '2001:0:5db8:d822::80ff:fffe', '2001:0:5db8:d822:0:0:f5ff:fffe',
    'fe80::1%eth0',
    'not-an-address',
  ])('%s is refused', (address) => {
    expect(isForbiddenAddress(address)).toBe(true);
  });

  test.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '100.128.0.1', '192.169.0.1', '2606:4700:4700::1111', '::ffff:93.184.216.34', '2001:db8::1', '64:ff9b::5db8:d822', '2002:5db8:d822::1', '2001:0:5db8:d822::a247:27dd'])('%s is allowed', (address) => {
    expect(isForbiddenAddress(address)).toBe(false);
  });
});

describe('retry schedule', () => {
  const schedule = parseConfig({}).WEBHOOK_RETRY_SCHEDULE;

  test('defaults: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, then daily, ending within 3 days of the first attempt', () => {
    expect(schedule.map((ms) => ms / 1000)).toEqual([5, 300, 1800, 7200, 18000, 36000, 86400, 86400]);
    const total = schedule.reduce((a, b) => a + b, 0);
    expect(total).toBeLessThan(3 * 86_400_000);
    expect(total + 86_400_000).toBeGreaterThan(3 * 86_400_000);
  });

  test.each([
    [1, null, 5_000],
    [2, null, 300_000],
    [8, null, 86_400_000],
    [9, null, null],
    [1, 120_000, 120_000],
    [2, 1000, 300_000],
    [9, 1000, null],
  ])('after %i failed attempts with Retry-After %p ms: next in %p ms', (attempts, retryAfter, expected) => {
    expect(retryDelay(schedule, attempts, retryAfter)).toBe(expected);
  });

  test.each([
    ['120', 120_000],
    [' 3 ', 3000],
    ['99999999', 86_400_000],
    ['Wed, 21 Oct 2015 07:28:30 GMT', 30_000],
    ['Wed, 21 Oct 2015 07:27:00 GMT', 0],
    ['soon', null],
    ['-5', null],
    ['12.5', null],
  ])('Retry-After %p is %p ms', (value, expected) => {
    expect(parseRetryAfter(value, Date.parse('Wed, 21 Oct 2015 07:28:00 GMT'))).toBe(expected);
  });

  test('schedule settings are durations, and a bad one is refused naming the setting', () => {
    expect(parseConfig({ WEBHOOK_RETRY_SCHEDULE: '200ms,1s,2m' }).WEBHOOK_RETRY_SCHEDULE).toEqual([200, 1000, 120_000]);
    expect(parseConfig({ WEBHOOK_DISABLE_AFTER: '2d' }).WEBHOOK_DISABLE_AFTER).toBe(172_800_000);
    expect(() => parseConfig({ WEBHOOK_RETRY_SCHEDULE: '5s,soon' })).toThrow(/WEBHOOK_RETRY_SCHEDULE="5s,soon": expected up to 50 comma-separated durations/);
    expect(() => parseConfig({ WEBHOOK_DISABLE_AFTER: '0s' })).toThrow(/WEBHOOK_DISABLE_AFTER="0s": expected a duration/);
  });
});

describe('signature', () => {
  test('a secret is whsec_ and the base64 of 32 random bytes', () => {
    const secret = newSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(newSecret()).not.toBe(secret);
  });

  test('verifies with the standardwebhooks library; X-Service-Signature carries the same value', () => {
    const secret = newSecret();
    const body = JSON.stringify({ id: 1, type: 'sos', note: 'é ✓' });
    const headers = signatureHeaders(secret, 'msg_1', body);
    expect(headers['x-service-signature']).toBe(headers['webhook-signature']);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(secret).verify(body, headers)).toEqual({ id: 1, type: 'sos', note: 'é ✓' });
    expect(() => new Webhook(secret).verify(body.replace('sos', 'SOS'), headers)).toThrow();
    expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow();
    const old = signatureHeaders(secret, 'msg_1', body, Date.now() - 10 * 60_000);
    expect(() => new Webhook(secret).verify(body, old)).toThrow();
  });
});
