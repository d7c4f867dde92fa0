// maintenance_due: the odometer or the engine hours crossing the device's schedule. A schedule is
// a start (the reading at the last service, 0 by default) and an interval; maintenance is due at
// start + interval, start + 2 × interval… The state is the interval reached (with the schedule it
// was reached under), so it changes only when a due point is crossed, not on every reading. The
// first reading under a schedule only sets the mark; a reading that goes down (a replaced
// odometer) moves the mark back without an event.
import type { Telemetry } from '../../positions/telemetry.js';
import type { Observation, Outcome } from './types.js';

export interface Schedule {
  start: number;
  every: number;
}

export interface MaintenanceSettings {
  /** Kilometres. */
  odometer: Schedule | null;
  /** Hours. */
  engineHours: Schedule | null;
}

interface Mark {
  /** Due points passed: floor((reading - start) / every). */
  k: number;
  start: number;
  every: number;
}

export interface MaintenanceState {
  odometer?: Mark;
  engineHours?: Mark;
}

const KINDS = ['odometer', 'engineHours'] as const;

/** Attributes are metres and seconds; schedules are kilometres and hours. */
function readingOf(kind: (typeof KINDS)[number], attributes: Telemetry): number | null {
  const v = attributes[kind];
  if (v === undefined || v < 0) return null;
  return kind === 'odometer' ? v / 1000 : v / 3600;
}

export function maintenanceRule(state: MaintenanceState, obs: Observation, settings: MaintenanceSettings): Outcome<MaintenanceState> {
  let next = state;
  const drafts: Outcome<MaintenanceState>['drafts'] = [];
  for (const kind of KINDS) {
    const schedule = settings[kind];
    const value = readingOf(kind, obs.attributes);
    if (!schedule || value === null) continue;
    const k = Math.floor((value - schedule.start) / schedule.every);
    const mark = state[kind];
    const sameSchedule = mark !== undefined && mark.start === schedule.start && mark.every === schedule.every;
    if (sameSchedule && mark.k === k) continue;
    if (sameSchedule && k > mark.k && k >= 1) {
      drafts.push({ type: 'maintenance_due', data: { kind, dueAt: schedule.start + k * schedule.every, reading: Math.round(value * 10) / 10, unit: kind === 'odometer' ? 'km' : 'h' } });
    }
    next = { ...next, [kind]: { k, start: schedule.start, every: schedule.every } };
  }
  return { state: next, drafts };
}
