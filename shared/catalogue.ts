// The public API's route catalogue: every operation once, with its method, path, scope, rate-limit
// bucket, operationId, tag, summary and the names of its schemas. The gateway compiles its matcher
// from it, the tracker binds a handler to each operationId, and the OpenAPI document and the
// security tests are generated from it. Adding a route is one entry here plus one handler.
import { INBOUND_MAX_BODY_BYTES } from './inbound.js';
import type { Scope } from './scopes.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The document's tags, in the order it lists them. */
export const TAGS = {
  devices: 'Units and their last state',
  positions: 'Position history',
  reports: 'Trips, stops and summaries of one unit or many',
  commands: 'Commands to units and what became of them',
  'alerts and events': 'What the event rules raised, and the settings they use',
  geofences: 'Areas the event rules watch',
  drivers: 'Drivers and the units they drive',
  rules: 'Custom alert rules',
  records: 'Records created by inbound webhooks',
  inbound: 'Calls from outside systems, authenticated by a secret rather than a token',
  stream: 'The live feed: positions, events and command status changes as they happen',
} as const;
export type Tag = keyof typeof TAGS;

export interface Operation {
  operationId: string;
  method: Method;
  /** Literal segments and `{name}` parameters, e.g. /api/public/v1/devices/{id}. */
  path: string;
  /** The scope a bearer token must hold; absent for the inbound call, which carries a secret. */
  scope?: Scope;
  /** Token routes count per token in their scope's bucket; inbound calls per webhook (`key`). */
  bucket: 'read' | 'write' | 'commands' | 'inbound';
  /** For per-key buckets: the path parameter that names the counter. */
  key?: string;
  /** A smaller body cap than the gateway's 1 MiB default. */
  maxBodyBytes?: number;
  /** An endless Server-Sent Events answer: it holds one of the token's stream slots while open, and has no upstream timeout. */
  stream?: true;
  tag: Tag;
  summary: string;
  /** What a client should know beyond the scope and the rate limit, which the document adds. */
  description?: string;
  /** The query's schema, by its name in the tracker's schema registry. */
  query?: string;
  /** The request body's schema, by name; `required: false` when a call may send none. */
  body?: { schema: string; required: boolean };
  /**
   * The success answer: its status, and the schema of its body (a page of them for `page`). `events`:
   * a Server-Sent Events stream, each event name with the schema of its data.
   */
  response: { status: number; description: string; schema?: string; page?: 'cursor' | 'all'; csv?: boolean; events?: Record<string, string> };
  /** Error statuses the operation can answer besides its success. */
  errors: readonly number[];
}

const V1 = '/api/public/v1';
const READ_ERRORS = [401, 403, 429, 500, 502] as const;

const read = (o: Omit<Operation, 'method' | 'scope' | 'bucket'>): Operation => ({ method: 'GET', scope: 'read', bucket: 'read', ...o });
const write = (method: Method, o: Omit<Operation, 'method' | 'scope' | 'bucket'>): Operation => ({ method, scope: 'write', bucket: 'write', ...o });

/** A report over a range of one unit, several or all of them, as JSON or CSV. */
const report = (operationId: string, name: string, summary: string, schema: string, description: string): Operation =>
  read({
    operationId,
    path: `${V1}/reports/${name}`,
    tag: 'reports',
    summary,
    description: `${description} Every unit named by \`deviceId\` (all the account's units when there is none) in one answer, streamed; \`Accept: text/csv\` gives CSV with a header row. Another account's unit is a 404. How trips are told from stops: docs/reports.md and the \`trips\` settings.`,
    query: 'ReportsQuery',
    response: { status: 200, description: name, schema, page: 'all', csv: true },
    errors: [400, 401, 403, 404, 429, 500, 502],
  });

/** The operationIds of a configuration collection's five operations, from its noun (geofence → listGeofences…). */
export function collectionOperationIds(noun: string) {
  const title = noun[0]!.toUpperCase() + noun.slice(1);
  return { list: `list${title}s`, create: `create${title}`, get: `get${title}`, replace: `replace${title}`, remove: `delete${title}` };
}

/** List, create, read, replace, delete of an account's configuration collection. */
function collection(tag: 'geofences' | 'drivers' | 'rules', noun: string, schema: string, extraDescription = ''): Operation[] {
  const ids = collectionOperationIds(noun);
  const path = `${V1}/${tag}`;
  const body = { schema: `${schema}Input`, required: true };
  return [
    read({
      operationId: ids.list,
      path,
      tag,
      summary: `List the account's ${noun}s, oldest first`,
      description: `Without \`limit\` at most 1000 are returned, with \`nextCursor\` when there are more.${extraDescription}`,
      query: 'ListQuery',
      response: { status: 200, description: `${schema}s`, schema, page: 'cursor' },
      errors: [400, ...READ_ERRORS],
    }),
    write('POST', { operationId: ids.create, path, tag, summary: `Create a ${noun}`, body, response: { status: 201, description: `The new ${noun}`, schema }, errors: [400, 401, 403, 409, 413, 415, 429, 500, 502] }),
    read({ operationId: ids.get, path: `${path}/{id}`, tag, summary: `One ${noun}`, response: { status: 200, description: `The ${noun}`, schema }, errors: [401, 403, 404, 429, 500, 502] }),
    write('PUT', { operationId: ids.replace, path: `${path}/{id}`, tag, summary: `Replace a ${noun}`, body, response: { status: 200, description: `The ${noun}`, schema }, errors: [400, 401, 403, 404, 409, 413, 415, 429, 500, 502] }),
    write('DELETE', { operationId: ids.remove, path: `${path}/{id}`, tag, summary: `Delete a ${noun}`, response: { status: 204, description: 'Deleted' }, errors: [401, 403, 404, 409, 429, 500, 502] }),
  ];
}

/** The read API of the records inbound webhooks create. */
const records = (operationId: string, path: string, what: string, action: string, schema: string): Operation =>
  read({
    operationId,
    path: `${V1}/${path}`,
    tag: 'records',
    summary: `List ${what} created by inbound webhooks, newest first`,
    description: `Records the account's \`${action}\` inbound webhooks created, newest \`time\` first. Without \`limit\` at most 1000 are returned, with \`nextCursor\` when there are more.`,
    query: 'RecordsQuery',
    response: { status: 200, description: path, schema, page: 'cursor' },
    errors: [400, ...READ_ERRORS],
  });

export const OPERATIONS: readonly Operation[] = [
  read({
    operationId: 'listDevices',
    path: `${V1}/devices`,
    tag: 'devices',
    summary: 'List the units visible to the token',
    description: 'Without `limit`, every unit of the account in one answer (no `nextCursor`). With it, pages in the same order (by id) with `nextCursor`: a walk sees each unit that exists throughout exactly once, while units are added or removed.',
    query: 'DevicesQuery',
    response: { status: 200, description: 'Units', schema: 'Device', page: 'cursor' },
    errors: [400, ...READ_ERRORS],
  }),
  write('POST', {
    operationId: 'createDevice',
    path: `${V1}/devices`,
    tag: 'devices',
    summary: 'Register a unit',
    description: 'Its identifier must not be registered yet, in this account or any other (409, naming the identifier only).',
    body: { schema: 'DeviceInput', required: true },
    response: { status: 201, description: 'The new unit', schema: 'Device' },
    errors: [400, 401, 403, 409, 413, 415, 429, 500, 502],
  }),
  write('POST', {
    operationId: 'createDevices',
    path: `${V1}/devices/bulk`,
    tag: 'devices',
    summary: 'Register up to 500 units in one call',
    description: 'Each item is judged on its own: valid ones with a free identifier are created, the others refused with their reason (400 invalid, 409 identifier taken or repeated in the request). The answer is 200 with one result per item, in request order; only a malformed envelope is a 400 for the whole call.',
    body: { schema: 'DevicesBulkInput', required: true },
    response: { status: 200, description: 'Per-item results', schema: 'DevicesBulkResult' },
    errors: [400, 401, 403, 413, 415, 429, 500, 502],
  }),
  read({ operationId: 'getDevice', path: `${V1}/devices/{id}`, tag: 'devices', summary: 'One unit', response: { status: 200, description: 'The unit', schema: 'Device' }, errors: [401, 403, 404, 429, 500, 502] }),
  write('PATCH', {
    operationId: 'updateDevice',
    path: `${V1}/devices/{id}`,
    tag: 'devices',
    summary: "Change a unit's name, plate or identifier",
    description: 'Fields left out are unchanged. A new identifier must not be registered yet (409); the connection of the old one is closed.',
    body: { schema: 'DevicePatch', required: true },
    response: { status: 200, description: 'The unit', schema: 'Device' },
    errors: [400, 401, 403, 404, 409, 413, 415, 429, 500, 502],
  }),
  write('DELETE', {
    operationId: 'deleteDevice',
    path: `${V1}/devices/{id}`,
    tag: 'devices',
    summary: 'Remove a unit',
    description: 'Removes the unit with its commands, events, alerts and settings; its connection is closed and its reports are refused from then on. `positions` says what becomes of its history, and the answer repeats it. Records created by inbound webhooks stay, no longer naming the unit; custom rules stop naming it (a rule left with no unit is disabled).',
    query: 'DeleteDeviceQuery',
    response: { status: 200, description: 'Removed', schema: 'DeviceRemoved' },
    errors: [400, 401, 403, 404, 429, 500, 502],
  }),
  read({
    operationId: 'listPositions',
    path: `${V1}/devices/{id}/positions`,
    tag: 'positions',
    summary: 'Position history of one unit, oldest first',
    query: 'PositionsQuery',
    response: { status: 200, description: 'Positions', schema: 'Position', page: 'cursor' },
    errors: [400, 401, 403, 404, 429, 500, 502],
  }),
  report('reportTrips', 'trips', 'Trips of the units in a range', 'Trip', 'Each trip: start and end time and place, distance from the odometer, duration, average and maximum speed, engine hours, fuel used, driver; by unit, then time.'),
  report('reportStops', 'stops', 'Stops of the units in a range', 'Stop', 'Each stop: start, end, place, duration and the time the engine ran while standing (idling); by unit, then time.'),
  report('reportSummary', 'summary', 'Distance, engine hours, speeds, trips and idling per unit (and per day)', 'ReportSummary', 'One row per unit over the range, or with `daily=true` one per unit and UTC day with positions.'),
  read({
    operationId: 'listCommands',
    path: `${V1}/devices/{id}/commands`,
    tag: 'commands',
    summary: "The unit's commands, newest first",
    description: 'Every command sent to the unit, with who sent it (the token id, or the id of the dashboard user), its attributes, status and reply: the audit log of engine commands, kept after they expire. Without `limit` at most 1000 are returned, with `nextCursor` when there are more.',
    query: 'ListQuery',
    response: { status: 200, description: 'Commands', schema: 'Command', page: 'cursor' },
    errors: [400, 401, 403, 404, 429, 500, 502],
  }),
  read({
    operationId: 'listCommandTypes',
    path: `${V1}/devices/{id}/commands/types`,
    tag: 'commands',
    summary: "The command types the unit's protocol supports",
    description: 'A unit that never connected has no known protocol: `protocol` is null and `types` empty (a command sent to it waits for its first connection, and fails then if its protocol lacks it).',
    response: { status: 200, description: 'Protocol and command types', schema: 'CommandTypes' },
    errors: [401, 403, 404, 429, 500, 502],
  }),
  {
    operationId: 'sendCommand',
    method: 'POST',
    path: `${V1}/devices/{id}/commands`,
    scope: 'commands',
    bucket: 'commands',
    tag: 'commands',
    summary: 'Send the unit a command',
    description:
      "Queues a command of a type the unit's protocol supports (409 otherwise); it is sent at once when the device is connected, else when it next connects, unless it expires first (5 minutes by default). `engineStop` is refused (409) while the unit's last reported speed is above 5 km/h by default, and expires after 60 seconds by default rather than waiting. See docs/commands.md.",
    body: { schema: 'CommandBody', required: true },
    response: { status: 200, description: 'Queued', schema: 'CommandResult' },
    errors: [400, 401, 403, 404, 409, 413, 415, 429, 500, 502],
  },
  read({ operationId: 'getCommand', path: `${V1}/devices/{id}/commands/{commandId}`, tag: 'commands', summary: 'What became of a command', response: { status: 200, description: 'The command', schema: 'Command' }, errors: [401, 403, 404, 429, 500, 502] }),
  {
    operationId: 'locateDevice',
    method: 'POST',
    path: `${V1}/devices/{id}/locate`,
    scope: 'commands',
    bucket: 'commands',
    tag: 'commands',
    summary: 'Ask the unit for an immediate position fix',
    description: 'Queues a locate command; it is sent at once when the device is connected, else when it next connects, unless it expires first (5 minutes by default).',
    body: { schema: 'LocateBody', required: false },
    response: { status: 200, description: 'Queued', schema: 'CommandResult' },
    errors: [400, 401, 403, 404, 409, 429, 500, 502],
  },
  read({
    operationId: 'listAlerts',
    path: `${V1}/alerts`,
    tag: 'alerts and events',
    summary: 'List alerts, newest first',
    description: '`status` defaults to `open`. Without `limit` at most 1000 alerts are returned, with `nextCursor` when there are more.',
    query: 'AlertsQuery',
    response: { status: 200, description: 'Alerts', schema: 'Alert', page: 'cursor' },
    errors: [400, ...READ_ERRORS],
  }),
  write('POST', {
    operationId: 'acknowledgeAlert',
    path: `${V1}/alerts/{id}/acknowledge`,
    tag: 'alerts and events',
    summary: 'Acknowledge an alert',
    description: 'Moves an open alert to `acknowledged`; acknowledging it again changes nothing and answers the same. No body is needed.',
    response: { status: 200, description: 'The alert', schema: 'Alert' },
    errors: [401, 403, 404, 429, 500, 502],
  }),
  read({
    operationId: 'listEvents',
    path: `${V1}/events`,
    tag: 'alerts and events',
    summary: 'List events, newest first',
    description: "Without `limit` at most 1000 events are returned, with `nextCursor` when there are more. An unknown `type` is a 400; another account's `deviceId` a 404. See docs/events.md for when each type is raised.",
    query: 'EventsQuery',
    response: { status: 200, description: 'Events', schema: 'Event', page: 'cursor' },
    errors: [400, 401, 403, 404, 429, 500, 502],
  }),
  read({
    operationId: 'streamFeed',
    path: `${V1}/stream`,
    stream: true,
    tag: 'stream',
    summary: "The account's live feed (Server-Sent Events)",
    description:
      'Each SSE event is named `position`, `event` or `command` (a command whose status changed) and carries its JSON in `data` and an `id` that orders it. ' +
      'Reconnect with `Last-Event-ID` (EventSource does) to get what was missed, for at least the last 5 minutes. A comment line comes every 15 s when nothing else does. ' +
      'A client that does not read fast enough is sent a `cutoff` event saying why, and the stream ends. Opening a stream counts once against the read limit; ' +
      "at most 5 streams per token are open at once (the next gets 429 with Retry-After). Another account's `deviceIds` are a 404.",
    query: 'StreamQuery',
    response: { status: 200, description: 'An endless text/event-stream', events: { position: 'StreamPosition', event: 'StreamEvent', command: 'Command', cutoff: 'StreamCutoff' } },
    errors: [400, 401, 403, 404, 429, 500, 502],
  }),
  ...collection('geofences', 'geofence', 'Geofence', ' A geofence used by a rule cannot be deleted (409).'),
  ...collection('drivers', 'driver', 'Driver'),
  ...collection('rules', 'rule', 'Rule'),
  read({ operationId: 'getDeviceDriver', path: `${V1}/devices/{id}/driver`, tag: 'drivers', summary: "The unit's driver", response: { status: 200, description: 'The assignment', schema: 'DriverAssignment' }, errors: [401, 403, 404, 429, 500, 502] }),
  write('PUT', {
    operationId: 'assignDeviceDriver',
    path: `${V1}/devices/{id}/driver`,
    tag: 'drivers',
    summary: 'Assign a driver to the unit (or none)',
    description: 'A driver drives one unit at a time: assigning them here takes them off any other unit.',
    body: { schema: 'DriverAssignmentInput', required: true },
    response: { status: 200, description: 'The assignment', schema: 'DriverAssignment' },
    errors: [400, 401, 403, 404, 413, 415, 429, 500, 502],
  }),
  read({ operationId: 'getDeviceSettings', path: `${V1}/devices/{id}/settings`, tag: 'alerts and events', summary: "The unit's event settings", response: { status: 200, description: 'Settings', schema: 'DeviceSettings' }, errors: [401, 403, 404, 429, 500, 502] }),
  write('PATCH', {
    operationId: 'updateDeviceSettings',
    path: `${V1}/devices/{id}/settings`,
    tag: 'alerts and events',
    summary: "Change the unit's event settings",
    description: 'Fields left out are unchanged; null clears a setting.',
    body: { schema: 'DeviceSettingsPatch', required: true },
    response: { status: 200, description: 'Settings', schema: 'DeviceSettings' },
    errors: [400, 401, 403, 404, 413, 415, 429, 500, 502],
  }),
  read({ operationId: 'getAccountSettings', path: `${V1}/settings`, tag: 'alerts and events', summary: "The account's event settings", response: { status: 200, description: 'Settings', schema: 'AccountSettings' }, errors: READ_ERRORS }),
  write('PATCH', {
    operationId: 'updateAccountSettings',
    path: `${V1}/settings`,
    tag: 'alerts and events',
    summary: "Change the account's event settings",
    body: { schema: 'AccountSettingsPatch', required: true },
    response: { status: 200, description: 'Settings', schema: 'AccountSettings' },
    errors: [400, 401, 403, 413, 415, 429, 500, 502],
  }),
  records('listIncidents', 'incidents', 'incidents', 'create_incident', 'Incident'),
  records('listExpenses', 'expenses', 'expenses', 'create_expense', 'Expense'),
  records('listWorkOrders', 'work-orders', 'work orders', 'create_work_order', 'WorkOrder'),
  records('listUnitNotes', 'unit-notes', 'unit notes', 'create_unit_note', 'UnitNote'),
  {
    operationId: 'receiveInboundCall',
    method: 'POST',
    path: '/api/inbound/{webhookId}',
    bucket: 'inbound',
    key: 'webhookId',
    maxBodyBytes: INBOUND_MAX_BODY_BYTES,
    tag: 'inbound',
    summary: "Inbound webhook: create a record in the webhook's account",
    response: { status: 201, description: 'Record created', schema: 'InboundAccepted' },
    errors: [400, 401, 413, 415, 422, 429, 500, 502],
  },
];
