// The schemas the route catalogue names, by name: the queries and request bodies the OpenAPI
// document describes as clients send them. Response shapes are found by their `id` in zod's global
// registry. The catalogue lives in shared/ and cannot import the tracker's zod schemas, hence names.
import type { z } from 'zod';
import { AccountSettingsPatch, DeviceSettingsPatch } from '../devices/settings-schemas.js';
import { DriverAssignmentInput, DriverInput } from '../drivers/schemas.js';
import { StreamQuery } from '../feed/schemas.js';
import { GeofenceInput } from '../geofences/schemas.js';
import { RecordsQuery } from '../records/schemas.js';
import { ReportsQuery } from '../reports/schemas.js';
import { DeleteDeviceQuery, DeviceInput, DevicePatch, DevicesBulkInput, DevicesQuery } from './device-schemas.js';
import { EventsQuery, ListQuery, RuleInput } from './metadata-schemas.js';
import { AlertsQuery, CommandBody, LocateBody, PositionsQuery } from './schemas.js';

export const QUERIES: Record<string, z.ZodObject> = { DevicesQuery, DeleteDeviceQuery, PositionsQuery, AlertsQuery, EventsQuery, ListQuery, RecordsQuery, ReportsQuery, StreamQuery };

export const BODIES: Record<string, z.ZodType> = { DeviceInput, DevicePatch, DevicesBulkInput, GeofenceInput, DriverInput, DriverAssignmentInput, RuleInput, DeviceSettingsPatch, AccountSettingsPatch, LocateBody, CommandBody };
