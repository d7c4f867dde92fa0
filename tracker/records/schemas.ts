// The records inbound webhooks create (incidents, expenses, work orders, unit notes): the bodies
// each action accepts, the records as the read API shows them, and the read API's query. Fields a
// call sends beyond these are kept in the record's `extra`; a field sent as null counts as absent.
import { z } from 'zod';
import { INBOUND_ACTIONS } from '../../shared/inbound.js';
import { timestamp } from '../../shared/validation.js';
import { paging } from '../storage/paging.js';

const text = (max: number) => z.string().trim().min(1).max(max);
const deviceId = z.string().max(64).meta({ description: "A unit (device) of the webhook's account" });
const time = timestamp.meta({ description: 'When it happened, ISO 8601 with a time zone; default: when the call was received', example: '2026-11-21T09:30:00Z' });

// ---- bodies the inbound actions accept ----

export const IncidentInput = z
  .object({
    title: text(200).nullish(),
    message: text(10_000).nullish(),
    severity: z.enum(['critical', 'warning', 'info']).nullish(),
    deviceId: deviceId.nullish(),
    time: time.nullish(),
  })
  .loose()
  .refine((v) => v.title != null || v.message != null, { message: 'missing field "title" or "message": an incident needs one of them', path: ['title'] })
  .meta({ description: 'create_incident: a `title` or a `message` is required' });

export const ExpenseInput = z
  .object({
    amount: z.number().min(-1e12).max(1e12).meta({ description: 'Amount in `currency`; negative for a refund or credit' }),
    currency: z.string().regex(/^[A-Za-z]{3}$/, 'must be a three-letter ISO 4217 code such as EUR').transform((c) => c.toUpperCase()).nullish(),
    category: text(100).nullish().meta({ description: 'Free text, such as fuel, tolls, repair' }),
    liters: z.number().min(0).max(1e6).nullish().meta({ description: 'Fuel volume, for fuel expenses' }),
    deviceId: deviceId.nullish(),
    time: time.nullish(),
  })
  .loose()
  .meta({ description: 'create_expense: `amount` is required' });

export const WorkOrderInput = z
  .object({
    title: text(200),
    description: text(10_000).nullish(),
    dueAt: timestamp.nullish().meta({ description: 'When the work is due, ISO 8601 with a time zone' }),
    deviceId: deviceId.nullish(),
    time: time.nullish(),
  })
  .loose()
  .meta({ description: 'create_work_order: `title` is required' });

export const UnitNoteInput = z
  .object({
    deviceId,
    text: text(10_000),
    time: time.nullish(),
  })
  .loose()
  .meta({ description: 'create_unit_note: `deviceId` and `text` are required' });

// ---- records as the read API shows them ----

const common = {
  id: z.string(),
  deviceId: z.string().nullable().meta({ description: 'The unit concerned, if the call named one' }),
  time: timestamp.meta({ description: "When it happened (the sender's time, else when received)" }),
  receivedAt: timestamp.meta({ description: 'When the call was received' }),
  webhookId: z.string().meta({ description: 'The inbound webhook that created it' }),
  extra: z.record(z.string(), z.unknown()).meta({ description: 'Fields of the call this API does not define, as sent' }),
};

export const Incident = z
  .object({ ...common, title: z.string().nullable(), message: z.string().nullable(), severity: z.enum(['critical', 'warning', 'info']).nullable() })
  .meta({ id: 'Incident' });

export const Expense = z
  .object({ ...common, amount: z.number(), currency: z.string().nullable().meta({ description: 'ISO 4217 code' }), category: z.string().nullable(), liters: z.number().nullable() })
  .meta({ id: 'Expense' });

export const WorkOrder = z
  .object({ ...common, title: z.string(), description: z.string().nullable(), dueAt: timestamp.nullable() })
  .meta({ id: 'WorkOrder' });

export const UnitNote = z.object({ ...common, deviceId: z.string(), text: z.string() }).meta({ id: 'UnitNote' });

export const InboundAccepted = z
  .object({
    ok: z.literal(true),
    action: z.enum(INBOUND_ACTIONS),
    id: z.string().meta({ description: 'The record created; for log_only, the stored call' }),
  })
  .meta({ id: 'InboundAccepted' });

export const RecordsQuery = z.object({
  deviceId: z.string().max(64).optional().meta({ description: 'Only records of this unit' }),
  from: timestamp.optional().meta({ description: 'Only records whose `time` is at or after this' }),
  to: timestamp.optional().meta({ description: 'Only records whose `time` is at or before this' }),
  ...paging,
});
