// Turns an inbound call's body into a record of one kind: the kind's fields validated (a 400 names
// the first bad field), everything else kept as `extra`.
import type { z } from 'zod';
import { ApiError } from '../../shared/errors.js';
import type { RecordKind } from './kinds.js';

export interface RecordInput {
  deviceId: string | null;
  /** The sender's time, if given. */
  time: Date | null;
  /** The kind's own fields by name (null when absent), times as Dates. */
  values: Record<string, unknown>;
  extra: Record<string, unknown>;
}

export function parseRecordInput(kind: RecordKind, body: Record<string, unknown>): RecordInput {
  const result = kind.input.safeParse(body);
  if (!result.success) throw new ApiError('bad_request', fieldMessage(result.error.issues[0]!, body));
  const data = result.data;
  const known = new Set(['deviceId', 'time', ...kind.fields.map((f) => f.name)]);
  const values = Object.fromEntries(
    kind.fields.map((f) => {
      const v = data[f.name] ?? null;
      return [f.name, f.type === 'time' && v !== null ? new Date(v as string) : v];
    }),
  );
  return {
    deviceId: (data.deviceId as string | undefined) ?? null,
    time: data.time ? new Date(data.time as string) : null,
    values,
    extra: Object.fromEntries(Object.entries(body).filter(([k]) => !known.has(k))),
  };
}

function fieldMessage(issue: z.core.$ZodIssue, body: Record<string, unknown>): string {
  if (issue.code === 'custom') return issue.message;
  const name = String(issue.path[0]);
  if (body[name] === undefined || body[name] === null) return `missing field "${name}"`;
  const hint =
    issue.code === 'invalid_type' ? `must be a ${issue.expected}`
    : issue.code === 'invalid_format' && issue.format === 'datetime' ? 'must be an ISO 8601 timestamp with a time zone, such as 2026-11-21T09:30:00Z'
    : issue.code === 'invalid_value' ? `must be one of ${issue.values.map(String).join(', ')}`
    : issue.code === 'too_small' ? (issue.origin === 'string' ? 'must not be empty' : `must be at least ${String(issue.minimum)}`)
    : issue.code === 'too_big' ? (issue.origin === 'string' ? `must be at most ${String(issue.maximum)} characters` : `must be at most ${String(issue.maximum)}`)
    : issue.message;
  return `invalid field "${name}": ${hint}`;
}
