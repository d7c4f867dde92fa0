// `npm run simulate -- [options]`: simulated devices speaking the real protocols to a tracker.
import { parseArgs } from 'node:util';
import type { Scenario, SimProtocol } from './device.js';
import { startFleet } from './fleet.js';

const PROTOCOLS: SimProtocol[] = ['gt06', 'teltonika', 'h02', 'osmand', 'jt808'];
const SCENARIOS: Scenario[] = ['sos', 'speeding', 'fuel-drop'];
const USAGE = `usage: simulate [--devices N] [--protocol gt06|teltonika|h02|osmand|mixed] [--imei-start DIGITS | --imeis A,B,…]
                [--interval SECONDS] [--scenario sos|speeding|fuel-drop] [--duration SECONDS]
                [--host HOST] [--port DEVICE_PORT] [--osmand-port PORT]
Devices must be registered first (admin devices add).`;

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
      },
    });
  } catch (err) {
    return fail((err as Error).message);
  }
})();

const count = Number(values.devices);
const interval = Number(values.interval);
if (!Number.isInteger(count) || count < 1 || count > 100_000) fail('--devices must be a whole number from 1 to 100000');
if (!(interval >= 0.1 && interval <= 3600)) fail('--interval must be between 0.1 and 3600 seconds');
if (values.protocol !== 'mixed' && !PROTOCOLS.includes(values.protocol as SimProtocol)) fail(`--protocol must be one of ${PROTOCOLS.join(', ')}, mixed`);
if (values.scenario && !SCENARIOS.includes(values.scenario as Scenario)) fail(`--scenario must be one of ${SCENARIOS.join(', ')}`);
if (!/^[0-9]{5,20}$/.test(values['imei-start'])) fail('--imei-start must be 5 to 20 digits');

const imeis = values.imeis
  ? values.imeis.split(',')
  : Array.from({ length: count }, (_, i) => (BigInt(values['imei-start']) + BigInt(i)).toString().padStart(values['imei-start'].length, '0'));
const fleet = await startFleet({
  devices: imeis.map((imei, i) => ({ imei, protocol: values.protocol === 'mixed' ? PROTOCOLS[i % PROTOCOLS.length]! : (values.protocol as SimProtocol) })),
  intervalSeconds: interval,
  target: { host: values.host, devicePort: Number(values.port), osmandPort: Number(values['osmand-port']) },
  scenario: values.scenario as Scenario | undefined,
  onError: (err) => process.stderr.write(`device error: ${(err as Error).message}\n`),
});
process.stdout.write(`${fleet.devices.length} simulated devices reporting every ${interval}s to ${values.host}:${values.port} (OsmAnd :${values['osmand-port']})\n`);

const report = setInterval(() => {
  const reports = fleet.devices.reduce((n, d) => n + d.reports, 0);
  const acks = fleet.devices.reduce((n, d) => n + d.acks, 0);
  process.stdout.write(`reports sent ${reports}, answers received ${acks}\n`);
}, 10_000);
const stop = () => {
  clearInterval(report);
  fleet.stop();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
if (values.duration) setTimeout(stop, Number(values.duration) * 1000);
