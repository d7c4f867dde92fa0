// The devices' latest telemetry end to end, one protocol each, against real tracker and gateway
// processes: a frame over TCP (HTTP for OsmAnd), its ACK, then GET /devices/{id} through the gateway
// shows the values in the vocabulary's units with the device time of the report; a status report
// without a fix (GT06 0x13, H02 LINK, OsmAnd without coordinates) updates the telemetry without
// moving the position.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { gt06Heartbeat, gt06Login, gt06Position } from '../../tracker/simulator/frames/gt06.js';
import { h02Link, h02Position } from '../../tracker/simulator/frames/h02.js';
import { osmandQueryString } from '../../tracker/simulator/frames/osmand.js';
import { teltonikaAvl, teltonikaHandshake, teltonikaRecord } from '../../tracker/simulator/frames/teltonika.js';
import { DeviceClient, eventually } from '../helpers/device-client.js';
import { freePort } from '../helpers/ports.js';
import { startService, stopAllServices } from '../helpers/processes.js';
import { createStack, type Stack } from '../helpers/stack.js';

interface Shown {
  position: { lat: number; lng: number } | null;
  lastUpdate: string | null;
  telemetry: Record<string, { value: unknown; time: string }>;
}

let stack: Stack;
let base: string;
let token: string;
let ports: Record<string, number>;
const ids: Record<string, string> = {};
const IMEI = { gt06: '359633100008001', teltonika: '359633100008002', h02: '4210058003', osmand: '359633100008004' } as const;
const fix = (minute: number) => ({ time: new Date(Date.UTC(2026, 10, 23, 9, minute, 0)), lat: 52.52, lng: 13.405, speed: 36, heading: 90 });
const iso = (minute: number) => fix(minute).time.toISOString();

/** The device as an integrator's client sees it, through the gateway with a read token. */
async function shown(name: keyof typeof IMEI): Promise<Shown> {
  const res = await fetch(`${base}/api/public/v1/devices/${ids[name]}`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as Shown;
}

beforeAll(async () => {
  stack = await createStack();
  const tracker = await stack.startTracker();
  ports = tracker.devicePorts;
  const gatewayPort = await freePort();
  base = `http://127.0.0.1:${gatewayPort}`;
  await startService('gateway/main.ts', { ...stack.gatewayEnv(tracker.port), GATEWAY_PORT: String(gatewayPort) }, { timeoutMs: 60_000 });
  const account = await stack.account('Telemetry fleet');
  for (const [name, imei] of Object.entries(IMEI)) ids[name] = await stack.device(account, imei);
  token = await stack.token(account, 'read');
}, 120_000);

afterAll(async () => {
  await stopAllServices();
  await stack?.close();
});

describe('the latest telemetry through the gateway', () => {
  test('GT06: a position with the ignition on, then a 0x13 status with a low battery and SOS', async () => {
    const d = await DeviceClient.open(ports.device!);
    d.send(gt06Login(IMEI.gt06, 1));
    await d.read(10);
    d.send(gt06Position(fix(0), { ignition: true }, 2));
    await d.read(10);
    const before = await shown('gt06');
    expect(before.telemetry.ignition).toEqual({ value: true, time: iso(0) });

    d.send(gt06Heartbeat({ ignition: true, batteryLevel: 10 }, 3));
    expect((await d.read(10))[3]).toBe(0x13);
    // The ACK came after commit: the status is there now (no device time: the time it was received).
    const low = await shown('gt06');
    expect(low.telemetry.batteryLevel!.value).toBe(16); // voltage level 1 of 6, in percent
    expect(Date.parse(low.telemetry.batteryLevel!.time)).toBeGreaterThan(Date.now() - 60_000);
    expect(low.telemetry.alarm).toBeUndefined();

    d.send(gt06Heartbeat({ ignition: true, batteryLevel: 10, alarm: 'sos' }, 4));
    await d.read(10);
    const after = await shown('gt06');
    expect(after.telemetry.alarm!.value).toBe('sos');
    expect(after.telemetry.ignition!.value).toBe(true);
    // Neither status moved the position.
    expect(after).toMatchObject({ position: before.position, lastUpdate: iso(0) });
    d.close();
  });

  test('Teltonika: ignition, fuel level, battery level and external power in their units', async () => {
    const d = await DeviceClient.open(ports.device!);
    d.send(teltonikaHandshake(IMEI.teltonika));
    expect(await d.read(1)).toEqual(Buffer.from([0x01]));
    d.send(teltonikaAvl([teltonikaRecord(fix(5), { ignition: true, fuelLevel: 40, batteryLevel: 90, power: 12.6 }), teltonikaRecord(fix(4), { power: 11.9 })], 0x8e));
    expect(await d.read(4)).toEqual(Buffer.from([0, 0, 0, 2]));
    const t = (await shown('teltonika')).telemetry;
    expect(t).toMatchObject({
      ignition: { value: true, time: iso(5) },
      fuelLevel: { value: 40, time: iso(5) },
      batteryLevel: { value: 90, time: iso(5) },
      power: { value: 12.6, time: iso(5) }, // volts; the older record's 11.9 V does not win
    });
    d.close();
  });

  test('H02: an extended V1 report with odometer and fuel, then a LINK heartbeat with a low battery', async () => {
    const d = await DeviceClient.open(ports.device!);
    // Extended V1 as the HQ protocol document lists it after the status word: odometer (m), temperature (°C), fuel (%), altitude, LAC, cell id.
    d.send(Buffer.from(h02Position(IMEI.h02, fix(10), { ignition: true }).toString('latin1').replace(/#$/, ',15234,21,55,40,1234,5678#'), 'latin1'));
    const first = await eventually(() => shown('h02'), (s) => s.telemetry.odometer !== undefined);
    expect(first.telemetry).toMatchObject({ odometer: { value: 15234, time: iso(10) }, fuelLevel: { value: 55, time: iso(10) }, ignition: { value: true, time: iso(10) } });

    d.send(h02Link(IMEI.h02, new Date(), { ignition: false, batteryLevel: 15 }));
    const after = await eventually(() => shown('h02'), (s) => s.telemetry.batteryLevel !== undefined);
    expect(after.telemetry.batteryLevel!.value).toBe(15);
    expect(after.telemetry.ignition!.value).toBe(false);
    expect(after.lastUpdate).toBe(iso(10));
    d.close();
  });

  test('OsmAnd: Traccar keys in their units, then a report without coordinates', async () => {
    const osmand = `http://127.0.0.1:${ports.osmand!}`;
    // Traccar's `hours` is milliseconds; the vocabulary's engineHours is seconds.
    const extras = new URLSearchParams({ power: '12.4', fuel: '41.5', hours: '7200000', odometer: '120500', motion: 'true' }).toString();
    const res = await fetch(`${osmand}/?${osmandQueryString(IMEI.osmand, fix(20), { batteryLevel: 80, ignition: true })}&${extras}`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect((await shown('osmand')).telemetry).toEqual({
      ignition: { value: true, time: iso(20) },
      motion: { value: true, time: iso(20) },
      batteryLevel: { value: 80, time: iso(20) },
      power: { value: 12.4, time: iso(20) },
      fuel: { value: 41.5, time: iso(20) },
      engineHours: { value: 7200, time: iso(20) },
      odometer: { value: 120500, time: iso(20) },
    });

    const status = await fetch(`${osmand}/?${new URLSearchParams({ id: IMEI.osmand, batt: '4', alarm: 'lowBattery' }).toString()}`, { method: 'POST' });
    expect(status.status).toBe(200);
    const after = await shown('osmand');
    expect(after.telemetry.batteryLevel!.value).toBe(4);
    expect(after.telemetry.alarm!.value).toBe('lowBattery');
    expect(after).toMatchObject({ lastUpdate: iso(20), position: { lat: 52.52, lng: 13.405 } });
  });

  test('the devices list shows the same telemetry', async () => {
    const res = await fetch(`${base}/api/public/v1/devices`, { headers: { authorization: `Bearer ${token}` } });
    const list = ((await res.json()) as { data: ({ id: string } & Shown)[] }).data;
    for (const name of Object.keys(IMEI) as (keyof typeof IMEI)[]) expect(list.find((x) => x.id === ids[name])!.telemetry).toEqual((await shown(name)).telemetry);
  });
});
