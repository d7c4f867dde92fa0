// `npm run bench -- reports`: the trips report over 90 days of one position per 5 seconds for one
// unit (1.55 million rows, ten trips a day with idling between them) against a plain count(*) of the
// same rows in the same run; and a month's summary for 1,000 units of 8,640 positions each. As in
// production, the background keeper computes the ended days once the positions are in (its cost is
// printed: time and tracker CPU per unit-day); then each report is timed through the tracker's HTTP
// API: the integrator's first call, and the next ones.
import { keepReportDays } from '../tracker/reports/keeper.js';
import { startTrackerFixture, type TrackerFixture } from '../test/helpers/tracker-app.js';
import { maintainPartitions } from '../tracker/storage/partitions.js';
import { fmt, median } from './lib.js';

const DAYS = 90;
const EVERY_S = 5;
const ROWS = (DAYS * 86_400) / EVERY_S;
const FLEET = 1000;
const FLEET_EVERY_S = 300;
const FLEET_DAYS = 30;

/**
 * One unit's track: from 08:00 to 18:00 each hour 40 minutes of driving at 40–69 km/h, then 20
 * minutes standing with the engine on; the ignition off the rest of the day. The odometer and engine
 * hours are the ones the tracker would compute (55.5 m per moving 5 s, the interval per record with
 * the ignition on).
 */
const TRACK = (every: number) => `
  SELECT $1::text, $2::timestamptz + i * interval '${every} seconds', true, 52 + m * 1e-6, 13 + m * 1e-6,
    CASE WHEN mv THEN 40 + i % 30 ELSE 0 END, i % 360, 30, 9,
    jsonb_build_object('ignition', h BETWEEN 8 AND 17, 'odometer', m * ${(55.5 * every) / 5}, 'engineHours', e * ${every}, 'power', 12.5, 'computed', 'odometer,engineHours')
  FROM (
    SELECT i, h, mv,
      (i / per_day) * (per_hour * 2 / 3 * 10) + CASE WHEN h < 8 THEN 0 WHEN h < 18 THEN (h - 8) * (per_hour * 2 / 3) + least(k, per_hour * 2 / 3) ELSE per_hour * 2 / 3 * 10 END AS m,
      (i / per_day) * (per_hour * 10) + CASE WHEN h < 8 THEN 0 WHEN h < 18 THEN (h - 8) * per_hour + k ELSE per_hour * 10 END AS e
    FROM (
      SELECT i, per_day, per_hour, (i % per_day) / per_hour AS h, i % per_hour AS k, ((i % per_day) / per_hour BETWEEN 8 AND 17 AND i % per_hour < per_hour * 2 / 3) AS mv
      FROM generate_series(0, $3 - 1) AS i, (SELECT 86400 / ${every} AS per_day, 3600 / ${every} AS per_hour) c
    ) a
  ) b`;

interface Timed {
  ms: number;
  cpuMs: number;
  items: number;
}

async function timed(f: TrackerFixture, account: string, path: string): Promise<Timed> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const res = await f.as(account, 'read').get(path);
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text.slice(0, 200)}`);
  const used = process.cpuUsage(cpu);
  return { ms, cpuMs: (used.user + used.system) / 1000, items: (res.body as { data: unknown[] }).data.length };
}

async function countMs(f: TrackerFixture, sql: string, params: unknown[]): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    await f.tracker.ctx.db.query(sql, params);
    times.push(performance.now() - started);
  }
  return median(times);
}

const medianRun = async (n: number, run: () => Promise<Timed>): Promise<Timed> => {
  const runs: Timed[] = [];
  for (let i = 0; i < n; i++) runs.push(await run());
  return runs.sort((a, b) => a.ms - b.ms)[Math.floor(n / 2)]!;
};

export async function run(): Promise<void> {
  // The keeper is run by hand below, once the positions are loaded, rather than on its timer.
  const f = await startTrackerFixture('postgres', { REPORTS_KEEP_DAYS: '0' });
  try {
    const db = f.tracker.ctx.db;
    await maintainPartitions(db, 400);
    const to = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000);
    const from = new Date(to.getTime() - DAYS * 86_400_000);

    const account = await f.account('Bench');
    const device = await f.device(account, '359633100009001', 'Busy');
    let started = performance.now();
    await db.query(`INSERT INTO positions (device_id, device_time, valid, lat, lng, speed, heading, altitude, satellites, attributes) ${TRACK(EVERY_S)}`, [device, from.toISOString(), ROWS]);
    const fleet = await f.account('Fleet');
    await db.query(
      `INSERT INTO devices (id, account_id, imei, name, plate, status) SELECT 'dev_' || lpad(i::text, 20, '0'), $1, '8' || lpad(i::text, 14, '0'), 'Unit ' || i, '', 'offline' FROM generate_series(1, $2) AS i`,
      [fleet, FLEET],
    );
    const monthTo = to;
    const monthFrom = new Date(to.getTime() - FLEET_DAYS * 86_400_000);
    const ids = (await db.query<{ id: string }>('SELECT id FROM devices WHERE account_id = $1 ORDER BY id', [fleet])).map((r) => r.id);
    for (const id of ids) {
      await db.query(`INSERT INTO positions (device_id, device_time, valid, lat, lng, speed, heading, altitude, satellites, attributes) ${TRACK(FLEET_EVERY_S)}`, [id, monthFrom.toISOString(), (FLEET_DAYS * 86_400) / FLEET_EVERY_S]);
    }
    await db.query('VACUUM ANALYZE');
    process.stdout.write(`loaded ${ROWS.toLocaleString('en-US')} + ${(FLEET * 8640).toLocaleString('en-US')} positions in ${fmt((performance.now() - started) / 1000)} s\n`);

    const keeperCpu = process.cpuUsage();
    started = performance.now();
    const unitDays = (await keepReportDays(db, DAYS))!;
    const keeperMs = performance.now() - started;
    const keeperUsed = process.cpuUsage(keeperCpu);
    process.stdout.write(
      `keeper: ${unitDays.toLocaleString('en-US')} unit-days (${FLEET + 1} units x ${DAYS} days) in ${fmt(keeperMs / 1000)} s, ` +
        `${fmt((keeperMs / unitDays) * 1000, 0)} µs and tracker CPU ${fmt(((keeperUsed.user + keeperUsed.system) / unitDays), 0)} µs per unit-day\n`,
    );

    const range = `from=${from.toISOString()}&to=${to.toISOString()}`;
    const count = await countMs(f, 'SELECT count(*) FROM positions WHERE device_id = $1 AND device_time >= $2 AND device_time <= $3', [device, from.toISOString(), to.toISOString()]);
    const tripsPath = `/api/public/v1/reports/trips?${range}&deviceId=${device}`;
    const cold = await timed(f, account, tripsPath);
    const warm = await medianRun(5, () => timed(f, account, tripsPath));
    const countAfter = await countMs(f, 'SELECT count(*) FROM positions WHERE device_id = $1 AND device_time >= $2 AND device_time <= $3', [device, from.toISOString(), to.toISOString()]);
    const scan = (count + countAfter) / 2;

    const monthRange = `from=${monthFrom.toISOString()}&to=${monthTo.toISOString()}`;
    const fleetCount = await countMs(f, 'SELECT count(*) FROM positions WHERE device_id = ANY($1::text[]) AND device_time >= $2 AND device_time <= $3', [ids, monthFrom.toISOString(), monthTo.toISOString()]);
    const summaryPath = `/api/public/v1/reports/summary?${monthRange}`;
    const summaryCold = await timed(f, fleet, summaryPath);
    const summaryWarm = await medianRun(3, () => timed(f, fleet, summaryPath));

    const line = (name: string, t: Timed, what: string) => `${name.padEnd(44)} ${fmt(t.ms, 0).padStart(7)} ms  (${t.items} ${what}; tracker process CPU ${fmt(t.cpuMs, 0)} ms)`;
    process.stdout.write(
      [
        `trips, 1 unit x 90 days (${ROWS.toLocaleString('en-US')} rows)`,
        `  ${'SELECT count(*) of the same rows (median of 5, before and after)'.padEnd(42)} ${fmt(scan, 0).padStart(7)} ms`,
        `  ${line('first call (ended days kept by the keeper)', cold, 'trips')}`,
        `  ${line('next calls (median of 5)', warm, 'trips')}`,
        `  ratio to count(*): first ${fmt(cold.ms / scan)}x, next ${fmt(warm.ms / scan)}x (target < 1 s and < 3x)`,
        `summary, ${FLEET} units x ${FLEET_DAYS} days (${(FLEET * 8640).toLocaleString('en-US')} rows)`,
        `  ${'SELECT count(*) of the same rows (median of 5)'.padEnd(42)} ${fmt(fleetCount, 0).padStart(7)} ms`,
        `  ${line('first call', summaryCold, 'rows')}`,
        `  ${line('next calls (median of 3)', summaryWarm, 'rows')}`,
        `  ratio to count(*): first ${fmt(summaryCold.ms / fleetCount)}x, next ${fmt(summaryWarm.ms / fleetCount)}x (target < 5 s)`,
      ].join('\n') + '\n',
    );
  } finally {
    await f.close();
  }
}
