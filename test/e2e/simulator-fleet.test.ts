// `npm run simulate` end to end: the simulator CLI as a process runs a mixed fleet of all twelve
// protocols for a few seconds against a real tracker process on PostgreSQL, over real TCP (the
// shared device port, one protocol on its own port) and OsmAnd over HTTP. Every unit logs in as its
// protocol requires, the ACKs come back as each protocol sends them, and every unit's positions
// are stored.
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { ACKED_REPORTS, ANSWERED_LOGIN } from '../../tracker/simulator/answers.js';
import { SIM_PROTOCOLS, type SimProtocol } from '../../tracker/simulator/protocols.js';
import { runCli } from '../helpers/cli.js';
import { eventually } from '../helpers/device-client.js';
import { freePort } from '../helpers/ports.js';
import { stopAllServices } from '../helpers/processes.js';
import { createStack, type Stack } from '../helpers/stack.js';

const SIMULATE = 'tracker/simulator/cli.ts';
const DEVICES = 24; // two of each protocol

let stack: Stack;
let ports: Record<string, number>;

beforeAll(async () => {
  stack = await createStack();
  // GT06 units also get their own port, to which the simulator is pointed with --protocol-ports.
  ports = (await stack.startTracker({ GT06_PORT: String(await freePort()) })).devicePorts;
}, 60_000);

afterAll(async () => {
  await stopAllServices();
  await stack?.close();
});

test('a mixed fleet of all twelve protocols logs in, is acknowledged and stored', async () => {
  const fleet = ['--devices', String(DEVICES), '--protocol', 'mixed', '--imei-start', '359633100060001'];
  const listed = await runCli([...fleet, '--print-ids'], {}, SIMULATE);
  expect(listed.code).toBe(0);
  const units = listed.stdout.trim().split('\n').map((l) => l.split(' ') as [string, SimProtocol]);
  expect(units).toHaveLength(DEVICES);
  expect(new Set(units.map(([, p]) => p))).toEqual(new Set(SIM_PROTOCOLS));
  // TK103 units are registered under the IMEI's last 12 digits, every other unit under its IMEI.
  for (const [id, protocol] of units) expect(id).toMatch(protocol === 'tk103' ? /^\d{12}$/ : /^3596331000600\d\d$/);

  const account = await stack.account('Mixed fleet');
  const deviceIds = new Map<string, SimProtocol>();
  for (const [id, protocol] of units) deviceIds.set(await stack.device(account, id), protocol);

  const run = await runCli(
    [...fleet, '--interval', '1', '--duration', '5', '--port', String(ports.device), '--osmand-port', String(ports.osmand), '--protocol-ports', `gt06=${ports.gt06}`],
    {},
    SIMULATE,
  );
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  for (const protocol of SIM_PROTOCOLS) {
    const line = new RegExp(`^${protocol}: 2 devices, reports sent (\\d+), ACKs received (\\d+), refusals (\\d+), logins answered (\\d+)$`, 'm').exec(run.stdout);
    expect([protocol, line !== null]).toEqual([protocol, true]);
    const [reports, acks, refusals, logins] = line!.slice(1).map(Number) as [number, number, number, number];
    expect([protocol, reports >= 8, refusals, logins]).toEqual([protocol, true, 0, ANSWERED_LOGIN.has(protocol) ? 2 : 0]);
    // The fleet stops mid-flight: at most the last report of each unit is unanswered.
    if (ACKED_REPORTS.has(protocol)) expect([protocol, acks >= reports - 2]).toEqual([protocol, true]);
    else expect([protocol, acks]).toEqual([protocol, 0]);
  }

  const stored = await eventually(
    () => stack.admin.db.query<{ id: string; protocol: string; n: number }>('SELECT d.id, d.protocol, count(p.*)::int AS n FROM devices d LEFT JOIN positions p ON p.device_id = d.id WHERE d.account_id = $1 GROUP BY d.id, d.protocol', [account]),
    (rows) => rows.every((r) => r.n >= 4),
  );
  expect(stored).toHaveLength(DEVICES);
  for (const row of stored) expect([row.protocol, row.n >= 4]).toEqual([deviceIds.get(row.id), true]);
}, 60_000);
