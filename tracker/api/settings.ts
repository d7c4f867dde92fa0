// /api/public/v1/devices/{id}/settings: what the event rules use for a unit (speed limit, fuel,
// maintenance schedule); /api/public/v1/settings: the account's default speed limit. Read with
// the read scope, changed (PATCH: only the fields sent) with the write scope.
import { Router } from 'express';
import type { TrackerContext } from '../context.js';
import { accountSettings, deviceSettings, updateAccountSettings, updateDeviceSettings } from '../devices/settings.js';
import { callerDevice } from './devices.js';
import { AccountSettingsPatch, DeviceSettingsPatch } from './metadata-schemas.js';
import { caller, jsonBody, parseBody, requireScope } from './request.js';

export function settingsRoutes(ctx: TrackerContext): Router {
  const router = Router();
  router.get('/api/public/v1/devices/:id/settings', requireScope('read'), async (req, res) => {
    const device = await callerDevice(ctx, caller(res).accountId, req.params.id as string);
    res.json(await deviceSettings(ctx.db, device.id));
  });
  router.patch('/api/public/v1/devices/:id/settings', requireScope('write'), jsonBody(), async (req, res) => {
    const device = await callerDevice(ctx, caller(res).accountId, req.params.id as string);
    const patch = parseBody(DeviceSettingsPatch, req.body);
    res.json(await updateDeviceSettings(ctx.db, device.id, patch));
  });
  router.get('/api/public/v1/settings', requireScope('read'), async (_req, res) => {
    res.json(await accountSettings(ctx.db, caller(res).accountId));
  });
  router.patch('/api/public/v1/settings', requireScope('write'), jsonBody(), async (req, res) => {
    const patch = parseBody(AccountSettingsPatch, req.body);
    res.json(await updateAccountSettings(ctx.db, caller(res).accountId, patch));
  });
  return router;
}
