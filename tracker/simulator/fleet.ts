// A fleet of simulated devices reporting on an interval until stopped.
import { SimulatedDevice, type Scenario, type SimTarget } from './device.js';
import { SIM_PROTOCOLS, type SimProtocol } from './protocols.js';
import { startPoint } from './route.js';

export interface FleetOptions {
  devices: { protocol: SimProtocol; imei: string }[];
  intervalSeconds: number;
  target: SimTarget;
  scenario?: Scenario | undefined;
  onError?: (err: unknown) => void;
}

export interface Fleet {
  devices: SimulatedDevice[];
  stop(): void;
}

/** The protocol of the fleet's `index`th device: `mixed` takes every protocol in turn, in equal shares. */
export function protocolAt(choice: SimProtocol | 'mixed', index: number): SimProtocol {
  return choice === 'mixed' ? SIM_PROTOCOLS[index % SIM_PROTOCOLS.length]! : choice;
}

export async function startFleet(options: FleetOptions): Promise<Fleet> {
  const devices = options.devices.map((d, i) => new SimulatedDevice(d.protocol, d.imei, startPoint(i), options.target));
  const onError = options.onError ?? (() => undefined);
  await Promise.all(devices.map((d) => d.connect().catch(onError)));
  if (options.scenario) for (const d of devices) d.play(options.scenario);
  // Spread the devices over the interval so the tracker sees a steady stream, not bursts.
  const timers = devices.map((d, i) =>
    setTimeout(() => {
      void d.tick(0).catch(onError);
      timers[i] = setInterval(() => void d.tick(options.intervalSeconds).catch(onError), options.intervalSeconds * 1000);
    }, (i / devices.length) * options.intervalSeconds * 1000),
  );
  return {
    devices,
    stop() {
      for (const t of timers) clearTimeout(t);
      for (const d of devices) d.close();
    },
  };
}
