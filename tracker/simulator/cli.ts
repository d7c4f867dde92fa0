// `npm run simulate -- [options]`: simulated devices speaking the real protocols to a tracker.
import { parseArgs } from 'node:util';
import { PROTOCOL_PORTS } from '../../shared/config.js';
import type { Scenario } from './device.js';
import { SIM_PROTOCOLS, simIdentifier, type SimProtocol } from './protocols.js';
import { protocolAt, startFleet } from './fleet.js';

const SCENARIOS: Scenario[] = ['sos', 'speeding', 'fuel-drop'];
const OWN_PORTS = Object.keys(PROTOCOL_PORTS) as (keyof typeof PROTOCOL_PORTS & SimProtocol)[];
const USAGE = `usage: simulate [--devices N] [--protocol NAME|mixed] [--imei-start IMEI | --imeis IMEI,IMEI,…]
                [--interval SECONDS] [--scenario sos|speeding|fuel-drop] [--duration SECONDS]
                [--host HOST] [--port DEVICE_PORT] [--osmand-port PORT]
                [--protocol-ports NAME=PORT,…|traccar] [--print-ids]
Protocols: ${SIM_PROTOCOLS.join(', ')}; mixed (the default) gives them equal shares, in that order.
Devices get consecutive 15-digit IMEIs from --imei-start (or those of --imeis); each is known by its
IMEI, except TK103 units, known by the IMEI's last 12 digits. --print-ids lists each device's
identifier and protocol (what to register with admin devices add) and exits.
TCP protocols go to DEVICE_PORT, where the tracker recognises them from their first bytes; OsmAnd to
its HTTP port. --protocol-ports sends a protocol to its own port instead (traccar: every protocol to
Traccar's port for it).`;

function fail(message: string): never {
  process.stderr.write(`error: ${message}\n${USAGE}\n`);
  process.exit(2);
}

const { values } = (() => {
  try {
    return parseArgs({
      options: {
        devices: { type: 'string', default: '10' },
        protocol: { type: 'string', default: 'mixed' },
        'imei-start': { type: 'string', default: '359633100000001' },
        imeis: { type: 'string' },
        interval: { type: 'string', default: '5' },
        scenario: { type: 'string' },
        duration: { type: 'string' },
        host: { type: 'string', default: '127.0.0.1' },
        port: { type: 'string', default: '5000' },
        'osmand-port': { type: 'string', default: '5055' },
        'protocol-ports': { type: 'string' },
        'print-ids': { type: 'boolean', default: false },
      },
    });
  } catch (err) {
    return fail((err as Error).message);
  }
})();

const IMEI = /^[0-9]{15}$/;
const isPort = (text: string) => /^[0-9]{1,5}$/.test(text) && Number(text) >= 1 && Number(text) <= 65535;

const count = Number(values.devices);
const interval = Number(values.interval);
const choice = values.protocol as SimProtocol | 'mixed';
if (!/^[0-9]{1,6}$/.test(values.devices) || count < 1 || count > 100_000) fail('--devices must be a whole number from 1 to 100000');
if (!(interval >= 0.1 && interval <= 3600)) fail('--interval must be between 0.1 and 3600 seconds');
if (choice !== 'mixed' && !SIM_PROTOCOLS.includes(choice)) fail(`--protocol must be one of ${SIM_PROTOCOLS.join(', ')}, mixed`);
if (values.scenario && !SCENARIOS.includes(values.scenario as Scenario)) fail(`--scenario must be one of ${SCENARIOS.join(', ')}`);
if (values.duration !== undefined && !(Number(values.duration) > 0 && Number(values.duration) <= 31_536_000)) fail('--duration must be a number of seconds above 0, at most a year');
if (!IMEI.test(values['imei-start'])) fail('--imei-start must be a 15-digit IMEI');
if (values['imei-start'] > String(10 ** 15 - count)) fail(`--imei-start leaves no room for ${count} consecutive 15-digit IMEIs`);
if (!/^[A-Za-z0-9.:[\]-]{1,253}$/.test(values.host)) fail('--host must be a host name or address');
if (!isPort(values.port)) fail('--port must be a port number from 1 to 65535');
if (!isPort(values['osmand-port'])) fail('--osmand-port must be a port number from 1 to 65535');

const imeis = values.imeis
  ? values.imeis.split(',')
  : Array.from({ length: count }, (_, i) => (BigInt(values['imei-start']) + BigInt(i)).toString().padStart(15, '0'));
if (imeis.length > 100_000) fail('--imeis takes at most 100000 IMEIs');
const badImei = imeis.find((imei) => !IMEI.test(imei));
if (badImei !== undefined) fail(`--imeis must be 15-digit IMEIs separated by commas ("${badImei.slice(0, 20)}" is not)`);
if (new Set(imeis).size !== imeis.length) fail('--imeis lists an IMEI twice');

/** `NAME=PORT,…` or `traccar` (every protocol on Traccar's port for it). */
function protocolPorts(text: string | undefined): Partial<Record<SimProtocol, number>> {
  if (text === undefined) return {};
  if (text === 'traccar') return { ...PROTOCOL_PORTS };
  const ports: Partial<Record<SimProtocol, number>> = {};
  for (const item of text.split(',')) {
    const [name, port] = item.split('=');
    if (!OWN_PORTS.includes(name as (typeof OWN_PORTS)[number])) fail(`--protocol-ports: "${name}" is not one of ${OWN_PORTS.join(', ')} (OsmAnd has --osmand-port)`);
    if (port === undefined || !isPort(port)) fail(`--protocol-ports: ${name} needs a port number from 1 to 65535 (${name}=PORT)`);
    ports[name as SimProtocol] = Number(port);
  }
  return ports;
}
const ports = protocolPorts(values['protocol-ports']);

const devices = imeis.map((imei, i) => ({ imei, protocol: protocolAt(choice, i) }));
if (values['print-ids']) {
  process.stdout.write(devices.map((d) => `${simIdentifier(d.protocol, d.imei)} ${d.protocol}\n`).join(''));
  process.exit(0);
}

const fleet = await startFleet({
  devices,
  intervalSeconds: interval,
  target: { host: values.host, devicePort: Number(values.port), osmandPort: Number(values['osmand-port']), ports },
  scenario: values.scenario as Scenario | undefined,
  onError: (err) => process.stderr.write(`device error: ${(err as Error).message}\n`),
});
process.stdout.write(`${fleet.devices.length} simulated devices reporting every ${interval}s to ${values.host}:${values.port} (OsmAnd :${values['osmand-port']})\n`);

const sum = (list: typeof fleet.devices, key: 'reports' | 'acks' | 'refusals') => list.reduce((n, d) => n + d[key], 0);
const summary = (list: typeof fleet.devices) =>
  `reports sent ${sum(list, 'reports')}, ACKs received ${sum(list, 'acks')}, refusals ${sum(list, 'refusals')}, logins answered ${list.filter((d) => d.loggedIn).length}`;
const report = setInterval(() => process.stdout.write(`${summary(fleet.devices)}\n`), 10_000);
const stop = () => {
  clearInterval(report);
  fleet.stop();
  // Per protocol: a protocol without report ACKs (Meitrack, Suntech, Queclink, GPS103, TK103) shows 0 ACKs.
  for (const protocol of SIM_PROTOCOLS) {
    const list = fleet.devices.filter((d) => d.protocol === protocol);
    if (list.length) process.stdout.write(`${protocol}: ${list.length} devices, ${summary(list)}\n`);
  }
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
if (values.duration) setTimeout(stop, Number(values.duration) * 1000);
