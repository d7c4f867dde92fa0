// The four kinds of record an inbound webhook can create, described once: the action that creates
// it, its table and id prefix, the body it accepts, the read API's operation and shape, and how each
// field maps to a column. Storage, validation and the read API all work from these descriptions.
import type { z } from 'zod';
import type { IdPrefix } from '../../shared/ids.js';
import type { InboundAction } from '../../shared/inbound.js';
import { Expense, ExpenseInput, Incident, IncidentInput, UnitNote, UnitNoteInput, WorkOrder, WorkOrderInput } from './schemas.js';

export interface Field {
  /** The name in calls and in the read API. */
  name: string;
  column: string;
  type: 'text' | 'number' | 'time';
}

export interface RecordKind {
  action: Exclude<InboundAction, 'log_only'>;
  table: string;
  prefix: IdPrefix;
  /** The read API's operation in the route catalogue. */
  operationId: string;
  /** The kind's slug in the dashboard's addresses. */
  path: string;
  input: z.ZodType<Record<string, unknown>>;
  output: z.ZodType;
  /** The kind's own fields, besides deviceId and time that every kind has. */
  fields: Field[];
}

export const RECORD_KINDS: readonly RecordKind[] = [
  {
    action: 'create_incident',
    table: 'incidents',
    prefix: 'inc',
    operationId: 'listIncidents',
    path: 'incidents',
    input: IncidentInput,
    output: Incident,
    fields: [
      { name: 'title', column: 'title', type: 'text' },
      { name: 'message', column: 'message', type: 'text' },
      { name: 'severity', column: 'severity', type: 'text' },
    ],
  },
  {
    action: 'create_expense',
    table: 'expenses',
    prefix: 'exp',
    operationId: 'listExpenses',
    path: 'expenses',
    input: ExpenseInput,
    output: Expense,
    fields: [
      { name: 'amount', column: 'amount', type: 'number' },
      { name: 'currency', column: 'currency', type: 'text' },
      { name: 'category', column: 'category', type: 'text' },
      { name: 'liters', column: 'liters', type: 'number' },
    ],
  },
  {
    action: 'create_work_order',
    table: 'work_orders',
    prefix: 'wo',
    operationId: 'listWorkOrders',
    path: 'work-orders',
    input: WorkOrderInput,
    output: WorkOrder,
    fields: [
      { name: 'title', column: 'title', type: 'text' },
      { name: 'description', column: 'description', type: 'text' },
      { name: 'dueAt', column: 'due_at', type: 'time' },
    ],
  },
  {
    action: 'create_unit_note',
    table: 'unit_notes',
    prefix: 'note',
    operationId: 'listUnitNotes',
    path: 'unit-notes',
    input: UnitNoteInput,
    output: UnitNote,
    fields: [{ name: 'text', column: 'text', type: 'text' }],
  },
];

export function kindOf(action: InboundAction): RecordKind | null {
  return RECORD_KINDS.find((k) => k.action === action) ?? null;
}
