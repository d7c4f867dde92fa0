// What the plausibility check refuses, it refuses for its own device alone: the rest of the frame or
// report goes on, the refusal is counted by protocol and reason and logged at most once a minute per
// device (a device replaying one corrupt record cannot flood the log).
import type { Logger } from '../../shared/logger.js';
import { implausible, plausibleTelemetry, type PlausibleLimits, type RefusalReason } from '../positions/plausible.js';
import type { Telemetry } from '../positions/telemetry.js';
import type { DecodedPosition } from '../protocols/types.js';
import type { IngestStats } from './stats.js';

export interface RefusalDeps {
  stats: IngestStats;
  logger: Logger;
  plausible: PlausibleLimits;
}

export interface Screened {
  positions: DecodedPosition[];
  /** The attribute set of a report without a fix, or undefined when there was none or it was refused. */
  attributes: Telemetry | undefined;
  /** The first reason anything was refused, or null when everything passed. */
  refused: RefusalReason | null;
}

/** Splits what a device sent into what may be stored and what is refused. `device`: its id or identity, for the log. */
export function screen(deps: RefusalDeps, protocol: string, device: string, positions: DecodedPosition[], attributes?: Telemetry): Screened {
  const result: Screened = { positions: [], attributes, refused: null };
  const now = Date.now();
  for (const p of positions) {
    const reason = implausible(p, deps.plausible, now);
    if (reason) refuse(deps, protocol, device, result, reason, reason === 'attribute' ? undefined : shown(p, reason));
    else result.positions.push(p);
  }
  if (attributes !== undefined && !plausibleTelemetry(attributes)) {
    refuse(deps, protocol, device, result, 'attribute', undefined);
    result.attributes = undefined;
  }
  return result;
}

function refuse(deps: RefusalDeps, protocol: string, device: string, result: Screened, reason: RefusalReason, value: unknown): void {
  deps.stats.countRefused(protocol, reason);
  if (deps.stats.shouldLogRefused(device)) deps.logger.warn({ device, protocol, reason, value }, 'implausible position refused');
  result.refused ??= reason;
}

/** The refused field as the log shows it (an invalid Date has no ISO text). */
function shown(p: DecodedPosition, reason: RefusalReason): unknown {
  if (reason === 'time') return p.deviceTime.getTime();
  if (reason === 'latitude') return p.lat;
  if (reason === 'longitude') return p.lng;
  return p[reason as 'speed' | 'heading' | 'altitude' | 'satellites'];
}
