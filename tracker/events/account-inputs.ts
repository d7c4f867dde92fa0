// An account's geofences and enabled rules, compiled for the ingest path and cached per process.
// Every write to them bumps accounts.rules_version in its own transaction (accounts/repository.ts); a batch reads each
// account's version with its devices and reloads only the accounts whose version moved, so a
// change is seen by the next batch in every tracker process, with no notification to miss.
import type { Condition } from '../custom-rules/condition.js';
import { windowMatcher, type TimeWindow } from '../custom-rules/time-window.js';
import { containsFn, type Shape } from '../geofences/shape.js';
import type { Queryable } from '../storage/db.js';
import type { ActiveRule } from './evaluators/custom.js';
import type { ActiveGeofence } from './evaluators/geofences.js';
import type { Severity } from './types.js';

export interface AccountInputs {
  version: number;
  geofences: ActiveGeofence[];
  rules: ActiveRule[];
}

interface GeofenceRow {
  id: string;
  account_id: string;
  name: string;
  shape: Shape;
}

interface RuleRow {
  id: string;
  account_id: string;
  name: string;
  severity: Severity;
  condition: Condition;
  geofence_id: string | null;
  time_window: TimeWindow | null;
  device_ids: string[] | null;
}

export function compileInputs(version: number, geofenceRows: GeofenceRow[], ruleRows: RuleRow[]): AccountInputs {
  const geofences = geofenceRows.map((g) => ({ id: g.id, name: g.name, contains: containsFn(g.shape) }));
  const byId = new Map(geofences.map((g) => [g.id, g]));
  const rules = ruleRows.map((r) => ({
    id: r.id,
    name: r.name,
    severity: r.severity,
    condition: r.condition,
    geofence: r.geofence_id ? byId.get(r.geofence_id) ?? null : null,
    inWindow: r.time_window ? windowMatcher(r.time_window) : null,
    deviceIds: r.device_ids ? new Set(r.device_ids) : null,
  }));
  return { version, geofences, rules };
}

export class AccountInputsCache {
  private readonly entries = new Map<string, AccountInputs>();

  constructor(private readonly maxAccounts = 10_000) {}

  /** The inputs of each account at (at least) the given version, loading the stale ones in one go. */
  async get(tx: Queryable, versions: ReadonlyMap<string, number>): Promise<Map<string, AccountInputs>> {
    const out = new Map<string, AccountInputs>();
    const stale: string[] = [];
    for (const [account, version] of versions) {
      const cached = this.entries.get(account);
      if (cached && cached.version >= version) {
        // Least recently used goes first when the cache is full.
        this.entries.delete(account);
        this.entries.set(account, cached);
        out.set(account, cached);
      } else stale.push(account);
    }
    if (stale.length === 0) return out;
    const [geofences, rules] = [
      await tx.query<GeofenceRow>('SELECT id, account_id, name, shape FROM geofences WHERE account_id = ANY($1) ORDER BY created_at, id', [stale]),
      await tx.query<RuleRow>('SELECT id, account_id, name, severity, condition, geofence_id, time_window, device_ids FROM rules WHERE account_id = ANY($1) AND enabled ORDER BY created_at, id', [stale]),
    ];
    for (const account of stale) {
      const inputs = compileInputs(versions.get(account)!, geofences.filter((g) => g.account_id === account), rules.filter((r) => r.account_id === account));
      this.entries.delete(account);
      this.entries.set(account, inputs);
      out.set(account, inputs);
    }
    while (this.entries.size > this.maxAccounts) this.entries.delete(this.entries.keys().next().value!);
    return out;
  }
}
