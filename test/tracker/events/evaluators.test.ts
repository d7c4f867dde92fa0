// The rules as tables: a sequence of reports in, the events expected out, without a database.
import { describe, expect, it } from '@jest/globals';
import { compileInputs } from '../../../tracker/events/account-inputs.js';
import { evaluateDevice, type DeviceInputs, type DeviceRuleState, type Evaluation } from '../../../tracker/events/evaluate.js';
import type { Observation } from '../../../tracker/events/evaluators/types.js';
import type { Telemetry } from '../../../tracker/positions/telemetry.js';

const T0 = Date.parse('2026-11-21T08:00:00Z');
const NOW = T0 + 3_600_000;

/** A valid fix at second `s`, speed in km/h, at (lat, lng), with attributes. */
function at(s: number, speed = 0, attributes: Telemetry = {}, where: [number, number] = [52.52, 13.405], valid = true): Observation {
  return { time: T0 + s * 1000, receivedAt: NOW + s * 1000, fix: { lat: where[0], lng: where[1], speed, heading: 90, valid }, attributes };
}

const noInputs: DeviceInputs = {
  speedLimitKmh: 90,
  fuel: { tankLitres: null, lowLitres: null, lowPercent: null },
  maintenance: { odometer: null, engineHours: null },
  geofences: [],
  rules: [],
};

/** Runs the reports one batch each (as they would arrive) and lists the events as "type@second". */
function run(observations: Observation[], inputs: Partial<DeviceInputs> = {}, batches: 'one' | 'each' = 'each', initial: DeviceRuleState = {}) {
  const merged = { ...noInputs, ...inputs };
  let state = initial;
  let fuelReadings: Evaluation['fuelReadings'] = [];
  const events: string[] = [];
  const data: Record<string, unknown>[] = [];
  for (const batch of batches === 'one' ? [observations] : observations.map((o) => [o])) {
    const result = evaluateDevice(state, batch, merged, fuelReadings);
    state = result.state;
    fuelReadings = result.fuelReadings;
    for (const r of result.raised) {
      events.push(`${r.type}@${(r.observation.time - T0) / 1000}`);
      data.push(r.data);
    }
  }
  return { events, data, state };
}

describe('sos', () => {
  it.each<[string, Observation[], string[]]>([
    ['a panic report', [at(0), at(10, 0, { alarm: 'sos' })], ['sos@10']],
    ['repeated while held: one event', [at(0, 0, { alarm: 'sos' }), at(10, 0, { alarm: 'sos' }), at(50, 0, { alarm: 'sos' })], ['sos@0']],
    ['kept in heartbeats minutes apart: one event', [at(0, 0, { alarm: 'sos' }), at(180, 0, { alarm: 'sos' }), at(360, 0, { alarm: 'sos' }), at(540, 0, { alarm: 'sos' })], ['sos@0']],
    ['pressed again after five quiet minutes', [at(0, 0, { alarm: 'sos' }), at(100, 0), at(301, 0, { alarm: 'sos' })], ['sos@0', 'sos@301']],
    ['in a list of alarms', [at(0, 0, { alarm: 'powerCut,sos' })], ['sos@0']],
    ['other alarms are not SOS', [at(0, 0, { alarm: 'powerCut' }), at(5, 0, { alarm: 'powerCut,lowBattery' })], []],
    ['on an invalid fix', [at(0, 0, { alarm: 'sos' }, [0, 0], false)], ['sos@0']],
  ])('%s', (_name, reports, expected) => {
    expect(run(reports).events).toEqual(expected);
  });

  it('a report without a fix raises it; a late (buffered) record raises it too', () => {
    const report: Observation = { time: NOW, receivedAt: NOW, fix: null, attributes: { alarm: 'sos' } };
    expect(run([report]).events).toEqual([`sos@${(NOW - T0) / 1000}`]);
    const late = { ...at(5, 0, { alarm: 'sos' }), receivedAt: NOW + 600_000 };
    expect(run([at(100), late]).events).toEqual(['sos@5']);
  });
});

describe('speeding', () => {
  it.each<[string, Observation[], string[]]>([
    ['one fast sample is not an episode', [at(0, 120), at(10, 60)], []],
    ['above for 5 s: one event', [at(0, 100), at(5, 105), at(10, 110), at(20, 120)], ['speeding@5']],
    ['under 5 s above is not enough', [at(0, 100), at(4, 100), at(8, 80)], []],
    ['hysteresis: 88 km/h does not end the episode', [at(0, 100), at(5, 100), at(10, 88), at(15, 100), at(20, 100)], ['speeding@5']],
    ['85 km/h ends it; a new episode is a new event', [at(0, 100), at(5, 100), at(10, 85), at(15, 100), at(20, 100)], ['speeding@5', 'speeding@20']],
    ['at the limit is not above it', [at(0, 90), at(10, 90), at(20, 90)], []],
    ['a long gap restarts the count', [at(0, 100), at(200, 100), at(203, 100), at(206, 100)], ['speeding@206']],
    ['invalid fixes do not count', [at(0, 150, {}, undefined, false), at(10, 150, {}, undefined, false)], []],
  ])('%s', (_name, reports, expected) => {
    expect(run(reports).events).toEqual(expected);
  });

  it('uses the device limit and reports it with the speed', () => {
    const { events, data } = run([at(0, 60), at(6, 61.26)], { speedLimitKmh: 50 });
    expect(events).toEqual(['speeding@6']);
    expect(data[0]).toEqual({ speed: 61.3, speedLimit: 50, since: '2026-11-21T08:00:00.000Z' });
  });
});

describe('geofences', () => {
  const inputs = compileInputs(1, [
    { id: 'gfn_depot', account_id: 'acc', name: 'Depot', shape: { type: 'circle', center: { lat: 52.52, lng: 13.405 }, radius: 200 } },
    { id: 'gfn_zone', account_id: 'acc', name: 'Zone', shape: { type: 'polygon', points: [{ lat: 52.53, lng: 13.40 }, { lat: 52.53, lng: 13.42 }, { lat: 52.54, lng: 13.42 }, { lat: 52.54, lng: 13.40 }, { lat: 52.53, lng: 13.40 }] } },
  ], []);
  const depot: [number, number] = [52.5201, 13.4051];
  const street: [number, number] = [52.525, 13.405];
  const zone: [number, number] = [52.535, 13.41];
  const g = (s: number, where: [number, number], valid = true) => at(s, 30, {}, where, valid);

  it.each<[string, Observation[], string[]]>([
    ['starting inside is an entry', [g(0, depot), g(10, depot)], ['geofence_enter@0']],
    ['leave, then enter another: exit then enter', [g(0, depot), g(10, street), g(20, zone)], ['geofence_enter@0', 'geofence_exit@10', 'geofence_enter@20']],
    ['one event per transition, not per position', [g(0, street), g(10, zone), g(20, zone), g(30, zone), g(40, street), g(50, street)], ['geofence_enter@10', 'geofence_exit@40']],
    ['invalid fixes move nothing', [g(0, street), g(10, zone, false), g(20, street)], []],
  ])('%s', (_name, reports, expected) => {
    expect(run(reports, { geofences: inputs.geofences }).events).toEqual(expected);
  });

  it('names the geofence; a deleted geofence is forgotten without an exit', () => {
    const first = run([g(0, zone)], { geofences: inputs.geofences });
    expect(first.data[0]).toEqual({ geofenceId: 'gfn_zone', geofenceName: 'Zone' });
    expect(run([g(10, street)], { geofences: [] }, 'each', first.state).events).toEqual([]);
  });

  it('a batch is judged in device-time order; a late record moves nothing', () => {
    expect(run([g(20, zone), g(0, street), g(10, street)], { geofences: inputs.geofences }, 'one').events).toEqual(['geofence_enter@20']);
    const inZone = run([g(0, street), g(30, zone)], { geofences: inputs.geofences });
    expect(run([g(10, street)], { geofences: inputs.geofences }, 'each', inZone.state).events).toEqual([]);
  });
});

describe('fuel', () => {
  const litres = (s: number, fuel: number) => at(s, 40, { fuel });
  const tank = { tankLitres: 80, lowLitres: null, lowPercent: null };

  it.each<[string, Observation[], string[]]>([
    ['a 20 L drop within a minute: one critical event', [litres(0, 60), litres(10, 60), litres(20, 60), litres(30, 40), litres(40, 40), litres(50, 40), litres(60, 40)], ['fuel_alert_critical@40']],
    ['one noisy low sample does not fire', [litres(0, 60), litres(10, 60), litres(20, 60), litres(30, 45), litres(40, 60), litres(50, 60)], []],
    ['8 L is not more than 8 L', [litres(0, 60), litres(10, 60), litres(20, 60), litres(30, 52), litres(40, 52), litres(50, 52)], []],
    ['the same drop over three minutes is not critical', [0, 30, 60, 90, 120, 150, 180].map((s, i) => litres(s, 60 - i * 3.5)), []],
    ['refuelling is not a drop', [litres(0, 20), litres(10, 20), litres(20, 20), litres(30, 60), litres(40, 60)], []],
    ['a second theft after the level settled is a new episode', [
      ...[0, 10, 20].map((s) => litres(s, 60)), ...[30, 40].map((s) => litres(s, 40)), ...[100, 110, 120].map((s) => litres(s, 40)), ...[130, 140].map((s) => litres(s, 25)),
    ], ['fuel_alert_critical@40', 'fuel_alert_critical@140']],
  ])('%s', (_name, reports, expected) => {
    expect(run(reports, { fuel: tank }).events).toEqual(expected);
  });

  it('percent readings count in litres with the tank size', () => {
    const pct = (s: number, fuelLevel: number) => at(s, 40, { fuelLevel });
    const reports = [pct(0, 60), pct(10, 60), pct(20, 60), pct(30, 40), pct(40, 40)];
    const { events, data } = run(reports, { fuel: { tankLitres: 100, lowLitres: null, lowPercent: null } });
    expect(events).toEqual(['fuel_alert_critical@40']);
    expect(data[0]).toMatchObject({ dropLitres: 20, fuelLitres: 40, fuelPercent: 40 });
    expect(run(reports, { fuel: { tankLitres: null, lowLitres: null, lowPercent: null } }).events).toEqual([]);
  });

  it.each<[string, Observation[], string[]]>([
    ['below the threshold: once per episode', [litres(0, 20), litres(10, 14), litres(20, 14), litres(30, 13), litres(40, 12)], ['fuel_alert@20']],
    ['a single low sample is noise', [litres(0, 20), litres(10, 20), litres(20, 5), litres(30, 20)], []],
    ['back above threshold + margin re-arms', [litres(0, 10), litres(10, 18), litres(20, 18), litres(30, 18), litres(40, 14), litres(50, 14)], ['fuel_alert@0', 'fuel_alert@50']],
    ['just above the threshold does not re-arm', [litres(0, 10), litres(10, 16), litres(20, 16), litres(30, 10), litres(40, 10)], ['fuel_alert@0']],
  ])('low fuel: %s', (_name, reports, expected) => {
    expect(run(reports, { fuel: { tankLitres: null, lowLitres: 15, lowPercent: null } }).events).toEqual(expected);
  });

  it('low fuel by percent', () => {
    const pct = (s: number, fuelLevel: number) => at(s, 40, { fuelLevel });
    expect(run([pct(0, 30), pct(10, 9), pct(20, 9)], { fuel: { tankLitres: null, lowLitres: null, lowPercent: 10 } }).events).toEqual(['fuel_alert@20']);
  });
});

describe('maintenance', () => {
  const odo = (s: number, km: number) => at(s, 50, { odometer: km * 1000 });
  // The attribute is seconds (the vocabulary's unit); schedules are hours.
  const hours = (s: number, h: number) => at(s, 50, { engineHours: h * 3600 });
  const every10k = { odometer: { start: 0, every: 10_000 }, engineHours: null };

  it.each<[string, Observation[], DeviceInputs['maintenance'], string[]]>([
    ['crossing a due point', [odo(0, 9_990), odo(10, 10_001), odo(20, 10_050)], every10k, ['maintenance_due@10']],
    ['the first reading only sets the mark', [odo(0, 25_000), odo(10, 25_100)], every10k, []],
    ['the next due point, not every reading', [odo(0, 9_999), odo(10, 10_000), odo(20, 19_999), odo(30, 20_000)], every10k, ['maintenance_due@10', 'maintenance_due@30']],
    ['a start at the last service', [odo(0, 14_000), odo(10, 15_100)], { odometer: { start: 5_100, every: 10_000 }, engineHours: null }, ['maintenance_due@10']],
    ['a replaced odometer going down is no event', [odo(0, 19_000), odo(10, 100), odo(20, 200)], every10k, []],
    ['engine hours', [hours(0, 249.5), hours(10, 250.2)], { odometer: null, engineHours: { start: 0, every: 250 } }, ['maintenance_due@10']],
    ['no schedule, no event', [odo(0, 9_990), odo(10, 10_001)], { odometer: null, engineHours: null }, []],
  ])('%s', (_name, reports, schedule, expected) => {
    expect(run(reports, { maintenance: schedule }).events).toEqual(expected);
  });

  it('reports what was reached', () => {
    expect(run([odo(0, 9_990), odo(10, 10_001)], { maintenance: every10k }).data[0]).toEqual({ kind: 'odometer', dueAt: 10_000, reading: 10_001, unit: 'km' });
  });
});

describe('custom rules', () => {
  const rule = (over: Record<string, unknown> = {}) => ({
    id: 'rul_1', account_id: 'acc', name: 'Engine on and fast', severity: 'warning' as const, geofence_id: null, time_window: null, device_ids: null,
    condition: { and: [{ '==': [{ var: 'attributes.ignition' }, true] }, { '>': [{ var: 'speed' }, 50] }] },
    ...over,
  });
  const zone = { id: 'gfn_z', account_id: 'acc', name: 'Zone', shape: { type: 'circle' as const, center: { lat: 52.52, lng: 13.405 }, radius: 500 } };
  const rules = (...r: ReturnType<typeof rule>[]) => compileInputs(1, [zone], r);

  it.each<[string, Observation[], ReturnType<typeof rule>, string[]]>([
    ['fires when the condition starts to hold, once', [at(0, 60, { ignition: false }), at(10, 60, { ignition: true }), at(20, 70, { ignition: true })], rule(), ['custom_rule_triggered@10']],
    ['fires again after it stopped holding', [at(0, 60, { ignition: true }), at(10, 10, { ignition: true }), at(20, 60, { ignition: true })], rule(), ['custom_rule_triggered@0', 'custom_rule_triggered@20']],
    ['a geofence condition', [at(0, 60, { ignition: true }, [52.6, 13.405]), at(10, 60, { ignition: true })], rule({ geofence_id: 'gfn_z' }), ['custom_rule_triggered@10']],
    // 08:00 UTC is 09:00 in Berlin (a Saturday, 2026-11-21).
    ['inside the time window', [at(0, 60, { ignition: true })], rule({ time_window: { from: '08:30', to: '17:00', timeZone: 'Europe/Berlin' } }), ['custom_rule_triggered@0']],
    ['outside the time window', [at(0, 60, { ignition: true })], rule({ time_window: { from: '22:00', to: '06:00', timeZone: 'Europe/Berlin' } }), []],
    ['outside the days', [at(0, 60, { ignition: true })], rule({ time_window: { days: ['mon', 'tue'], from: '00:00', to: '23:59', timeZone: 'UTC' } }), []],
    ['a condition that cannot be applied counts as false', [at(0, 60, {})], rule({ condition: { '>': [{ var: 'attributes.missing.deep' }, 1] } }), []],
  ])('%s', (_name, reports, r, expected) => {
    expect(run(reports, { rules: rules(r).rules }).events).toEqual(expected);
  });

  it('carries the rule and its severity', () => {
    const result = evaluateDevice({}, [at(0, 60, { ignition: true })], { ...noInputs, rules: rules(rule({ severity: 'critical' })).rules });
    expect(result.raised[0]).toMatchObject({ type: 'custom_rule_triggered', severity: 'critical', data: { ruleId: 'rul_1', ruleName: 'Engine on and fast' } });
  });
});

describe('state', () => {
  it('is written only when something but the time changed', () => {
    const first = evaluateDevice({}, [at(0, 30)], noInputs);
    expect(first.changed).toBe(false);
    const speeding = evaluateDevice({}, [at(0, 120)], noInputs);
    expect(speeding.changed).toBe(true);
    // Same state given back in another key order (as jsonb returns it) is not a change.
    const reordered = JSON.parse(JSON.stringify({ speeding: { last: speeding.state.speeding!.last, since: speeding.state.speeding!.since }, t: speeding.state.t })) as DeviceRuleState;
    expect(evaluateDevice(reordered, [at(1, 120)], noInputs).state.speeding).toEqual({ since: T0, last: T0 + 1000 });
  });

  it('a fuel reading moves the window, which is not stored: a steady level changes no state', () => {
    let state: DeviceRuleState = {};
    let window: Evaluation['fuelReadings'] = [];
    // One reading a second: the window (the last 60 s, both ends in, and the two readings before it) holds 63.
    for (let s = 0; s < 70; s++) {
      const result = evaluateDevice(state, [at(s, 0, { fuel: 40 })], noInputs, window);
      expect(result.changed).toBe(false);
      state = result.state;
      window = result.fuelReadings;
    }
    expect(window).toHaveLength(63);
    expect(window.at(-1)).toEqual({ t: T0 + 69_000, l: 40 });
    expect(state.fuel).toBeUndefined();
    // Below the threshold the flag is the change, stored once.
    const low = { ...noInputs, fuel: { tankLitres: null, lowLitres: 39.5, lowPercent: null } };
    const changes: [boolean, unknown][] = [];
    for (let s = 70; s < 74; s++) {
      const result = evaluateDevice(state, [at(s, 0, { fuel: 39 })], low, window);
      changes.push([result.changed, result.state.fuel]);
      state = result.state;
      window = result.fuelReadings;
    }
    // The median of three moves on the second low reading.
    expect(changes).toEqual([[false, undefined], [true, { low: true }], [false, { low: true }], [false, { low: true }]]);
  });

  it('a repeated SOS that moves nothing is not a change', () => {
    const first = evaluateDevice({}, [{ ...at(0, 0, { alarm: 'sos' }), receivedAt: NOW }], noInputs);
    expect(first.changed).toBe(true);
    const stored = JSON.parse(JSON.stringify(first.state)) as DeviceRuleState;
    // Received before the stored one (a buffered record): the rule rebuilds the same state.
    const again = evaluateDevice(stored, [{ ...at(0, 0, { alarm: 'sos' }), receivedAt: NOW - 1000 }], noInputs);
    expect(again.raised).toEqual([]);
    expect(again.changed).toBe(false);
  });

  it('a record far ahead of the clock is not judged, so later records are not taken for late ones', () => {
    const future = { ...at(0, 120), time: NOW + 86_400_000 };
    const { events } = run([future, at(10, 120), at(20, 120)]);
    expect(events).toEqual(['speeding@20']);
  });
});
