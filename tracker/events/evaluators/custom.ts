// custom_rule_triggered: an account's rule fires when its condition starts to hold (was false, or
// the rule is new, at the previous position) and fires again only after it has stopped holding.
// A rule may also require the device to be inside a geofence (on a valid fix) and the moment to
// fall in a time window; its severity is the rule's.
import { conditionHolds, type Condition } from '../../custom-rules/condition.js';
import type { Severity } from '../types.js';
import type { ActiveGeofence } from './geofences.js';
import type { Observation, Outcome } from './types.js';

export interface ActiveRule {
  id: string;
  name: string;
  severity: Severity;
  condition: Condition;
  geofence: ActiveGeofence | null;
  inWindow: ((time: number) => boolean) | null;
  /** The devices it applies to; null for all of the account's devices. */
  deviceIds: ReadonlySet<string> | null;
}

export interface CustomRuleState {
  /** Rules whose condition held at the previous position. */
  holding?: string[];
}

/** What a condition can refer to: {"var": "speed"}, {"var": "attributes.ignition"}… */
export function conditionData(obs: Observation): Record<string, unknown> {
  const f = obs.fix;
  return { speed: f?.speed ?? null, heading: f?.heading ?? null, lat: f?.lat ?? null, lng: f?.lng ?? null, valid: f?.valid ?? false, altitude: f?.altitude ?? null, satellites: f?.satellites ?? null, attributes: obs.attributes };
}

function holds(rule: ActiveRule, obs: Observation, data: Record<string, unknown>): boolean {
  if (rule.geofence && !(obs.fix?.valid && rule.geofence.contains(obs.fix.lat, obs.fix.lng))) return false;
  if (rule.inWindow && !rule.inWindow(obs.time)) return false;
  return conditionHolds(rule.condition, data);
}

export function customRule(state: CustomRuleState, obs: Observation, rules: readonly ActiveRule[]): Outcome<CustomRuleState> {
  if (rules.length === 0) return { state: state.holding ? {} : state, drafts: [] };
  const before = new Set(state.holding ?? []);
  const data = conditionData(obs);
  const holding = rules.filter((r) => holds(r, obs, data));
  const drafts = holding
    .filter((r) => !before.has(r.id))
    .map((r) => ({ type: 'custom_rule_triggered' as const, severity: r.severity, data: { ruleId: r.id, ruleName: r.name } }));
  const same = holding.length === before.size && holding.every((r) => before.has(r.id));
  return { state: same ? state : holding.length > 0 ? { holding: holding.map((r) => r.id) } : {}, drafts };
}
