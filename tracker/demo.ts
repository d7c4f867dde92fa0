// Demo data for a first run: on an empty database (unless DEMO=false), one account with a few
// devices, a read,commands token printed once with a curl line to try, and a dashboard owner
// whose one-time set-password link is printed too.
import { countAccounts } from './accounts/repository.js';
import { runVerb } from './admin/verbs.js';
import type { TrackerContext } from './context.js';
import { findDeviceByImei } from './devices/repository.js';
import { startFleet, type Fleet } from './simulator/fleet.js';

export const DEMO_DEVICES = [
  { imei: '359633100000001', name: 'Van 1', plate: 'DEMO-001', protocol: 'gt06' },
  { imei: '359633100000002', name: 'Van 2', plate: 'DEMO-002', protocol: 'teltonika' },
  { imei: '359633100000003', name: 'Truck 1', plate: 'DEMO-003', protocol: 'osmand' },
] as const;

const DEMO_OWNER = 'owner@demo.example';

export async function seedDemo(ctx: TrackerContext): Promise<void> {
  if (ctx.config.DEMO === false) return;
  if ((await countAccounts(ctx.db)) > 0) return;
  const account = (await runVerb(ctx, 'accounts create', { name: 'Demo fleet' })) as { id: string };
  for (const d of DEMO_DEVICES) await runVerb(ctx, 'devices add', { account: account.id, imei: d.imei, name: d.name, plate: d.plate });
  const token = (await runVerb(ctx, 'tokens create', { account: account.id, scopes: 'read,commands', name: 'demo' })) as { token: string };
  const owner = (await runVerb(ctx, 'users create', { account: account.id, email: DEMO_OWNER })) as { setPasswordUrl: string };
  ctx.logger.info({ accountId: account.id, devices: DEMO_DEVICES.length }, 'demo account created');
  // Printed, never logged: the token is shown this once.
  process.stdout.write(
    [
      '',
      `Demo account ${account.id} with ${DEMO_DEVICES.length} devices. API token (read,commands), shown once:`,
      `  ${token.token}`,
      'Try:',
      `  curl -H "Authorization: Bearer ${token.token}" ${ctx.config.PUBLIC_BASE_URL}/api/public/v1/devices`,
      `Dashboard: set a password for ${DEMO_OWNER} (link works once), then sign in:`,
      `  ${owner.setPasswordUrl}`,
      '',
    ].join('\n') + '\n',
  );
}

/** Drives the demo devices with the simulator over the tracker's own ports, so positions move. */
export async function startDemoTraffic(ctx: TrackerContext, ports: Record<string, number>): Promise<Fleet | null> {
  if (ctx.config.DEMO === false) return null;
  for (const d of DEMO_DEVICES) if (!(await findDeviceByImei(ctx.db, d.imei))) return null;
  return startFleet({
    devices: DEMO_DEVICES.map((d) => ({ imei: d.imei, protocol: d.protocol })),
    intervalSeconds: 5,
    target: { host: '127.0.0.1', devicePort: ports.device!, osmandPort: ports.osmand! },
    onError: (err) => ctx.logger.warn({ err }, 'demo traffic'),
  });
}
