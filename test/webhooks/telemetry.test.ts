// Outbound webhooks carry the position and the telemetry at the event: units report over OsmAnd HTTP
// to a real tracker, which raises events and posts them to a receiver over real HTTP, signed, in the
// standard format and in Slack's. An alarm sent with a fix carries that fix; one sent without
// coordinates carries the unit's last known position, marked as such, and that report's telemetry;
// a unit going offline, its last known position and the telemetry of its latest report.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import { runVerb } from '../../tracker/admin/verbs.js';
import { startTrackerFixture, type TrackerFixture } from '../helpers/tracker-app.js';
import { WebhookReceiver, type Received } from '../helpers/webhook-receiver.js';

interface Payload {
  type: string;
  device: { id: string };
  position: Record<string, unknown> | null;
  attributes: Record<string, unknown>;
}

describe('webhook payloads with the telemetry', () => {
  let f: TrackerFixture;
  let receiver: WebhookReceiver;
  let secret: string;
  let account: string;

  beforeAll(async () => {
    f = await startTrackerFixture('postgres', { DEVICE_TIMEOUT_SECONDS: '1', DEVICE_OFFLINE_GRACE_SECONDS: '0', WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true', OSMAND_REPORTS_PER_MINUTE_PER_ADDRESS: '1000000' });
    receiver = await WebhookReceiver.start();
    account = await f.account('Acme');
    secret = ((await runVerb(f.tracker.ctx, 'webhooks add', { account, url: receiver.url('/standard'), events: 'sos,device_offline', format: 'standard' })) as { secret: string }).secret;
    await runVerb(f.tracker.ctx, 'webhooks add', { account, url: receiver.url('/slack'), events: 'sos', format: 'slack' });
  });
  afterAll(async () => {
    await receiver?.close();
    await f?.close();
  });

  /** An OsmAnd report, as a phone running Traccar Client sends it. */
  const report = async (params: Record<string, string>) => {
    const res = await fetch(`http://127.0.0.1:${f.tracker.ingest.ports.osmand!}/?${new URLSearchParams(params).toString()}`, { method: 'POST' });
    expect(res.status).toBe(200);
  };
  const standard = (got: Received[]) => got.filter((r) => !JSON.parse(r.body).blocks).map((r) => new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as Payload);
  const slack = (got: Received[]) => got.map((r) => JSON.parse(r.body) as { blocks?: { fields?: { text: string }[] }[] }).filter((b) => b.blocks);
  const sosOf = (device: string) => standard(receiver.received).find((p) => p.device.id === device && p.type === 'sos')!;
  /** Until the SOS of the unit has come in both formats. */
  const waitFor = (device: string) =>
    receiver.waitFor((got) => standard(got).some((p) => p.device.id === device && p.type === 'sos') && slack(got).length >= standard(got).filter((p) => p.type === 'sos').length, 15_000);

  test('an SOS with a fix carries that fix and its telemetry, in the vocabulary’s units', async () => {
    const device = await f.device(account, '359633100000601', 'Van');
    const time = Math.floor(Date.now() / 1000) - 30;
    await report({ id: '359633100000601', timestamp: String(time), lat: '52.52', lon: '13.405', speed: '0', bearing: '90', altitude: '35', batt: '80', alarm: 'sos', ignition: 'true', power: '12.6', hours: '7200000' });
    await waitFor(device);
    const sos = sosOf(device);
    expect(sos.position).toEqual({ lat: 52.52, lng: 13.405, speed: 0, heading: 90, timestamp: new Date(time * 1000).toISOString(), valid: true, lastKnown: false });
    // As the history stores them: Traccar's hours (ms) as engineHours in seconds, the odometer the tracker computed.
    expect(sos.attributes).toEqual({ alarm: 'sos', ignition: true, power: 12.6, batteryLevel: 80, engineHours: 7200, odometer: 0, computed: 'odometer' });
    const fields = slack(receiver.received).flatMap((b) => b.blocks!.flatMap((block) => block.fields ?? []).map((x) => x.text));
    expect(fields).toContain('*Telemetry*\nIgnition on · Alarm sos · Power 12.6 V · Battery 80 %');
  });

  test('an SOS without coordinates carries the last known position, marked, and that report’s telemetry', async () => {
    const device = await f.device(account, '359633100000602', 'Truck');
    const fixTime = Math.floor(Date.now() / 1000) - 120;
    await report({ id: '359633100000602', timestamp: String(fixTime), lat: '48.85', lon: '2.35', speed: '0', bearing: '180', ignition: 'true', power: '13.1' });
    await report({ id: '359633100000602', alarm: 'sos', ignition: 'false', power: '11.2', batt: '15' });
    await waitFor(device);
    const sos = sosOf(device);
    expect(sos.position).toEqual({ lat: 48.85, lng: 2.35, speed: 0, heading: 180, timestamp: new Date(fixTime * 1000).toISOString(), valid: true, lastKnown: true });
    expect(sos.attributes).toEqual({ alarm: 'sos', ignition: false, power: 11.2, batteryLevel: 15 });
    const fields = slack(receiver.received).flatMap((b) => b.blocks!.flatMap((block) => block.fields ?? []).map((x) => x.text));
    expect(fields).toContain(`*Position*\n48.85000, 2.35000 (last known, ${new Date(fixTime * 1000).toISOString().replace('T', ' ').replace('.000Z', ' UTC')})`);
    expect(fields).toContain('*Telemetry*\nIgnition off · Alarm sos · Power 11.2 V · Battery 15 %');
  });

  test('going offline carries the last known position and the telemetry of the latest report', async () => {
    const device = await f.device(account, '359633100000603', 'Reefer');
    const fixTime = Math.floor(Date.now() / 1000) - 10;
    await report({ id: '359633100000603', timestamp: String(fixTime), lat: '50.11', lon: '8.68', speed: '0', bearing: '0', ignition: 'false', temp1: '-18.5', fuelLevel: '60' });
    await receiver.waitFor((got) => standard(got).some((p) => p.device.id === device && p.type === 'device_offline'), 15_000);
    const offline = standard(receiver.received).find((p) => p.device.id === device && p.type === 'device_offline')!;
    expect(offline.position).toEqual({ lat: 50.11, lng: 8.68, speed: 0, heading: 0, timestamp: new Date(fixTime * 1000).toISOString(), valid: true, lastKnown: true });
    expect(offline.attributes).toEqual({ ignition: false, temp1: -18.5, fuelLevel: 60, odometer: 0, engineHours: 0, computed: 'odometer,engineHours' });
  });
});
