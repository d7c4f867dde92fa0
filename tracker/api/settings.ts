// A unit's event settings, what the event rules use for it (speed limit, fuel, maintenance
// schedule), and the account's default speed limit: read, and changed (only the fields sent).
import type { TrackerContext } from '../context.js';
import { AccountSettingsPatch, DeviceSettingsPatch } from '../devices/settings-schemas.js';
import { accountSettings, deviceSettings, updateAccountSettings, updateDeviceSettings } from '../devices/settings.js';
import { callerDevice } from './devices.js';
import type { Handlers } from './operations.js';
import { caller, jsonBody, parseBody } from './request.js';

export function settingsHandlers(ctx: TrackerContext): Handlers {
  return {
    async getDeviceSettings(req, res) {
      const device = await callerDevice(ctx, caller(res).accountId, req.params.id as string);
      res.json(await deviceSettings(ctx.db, device.id));
    },
    updateDeviceSettings: [
      jsonBody(),
      async (req, res) => {
        const device = await callerDevice(ctx, caller(res).accountId, req.params.id as string);
        const patch = parseBody(DeviceSettingsPatch, req.body);
        res.json(await updateDeviceSettings(ctx.db, device.id, patch));
      },
    ],
    async getAccountSettings(_req, res) {
      res.json(await accountSettings(ctx.db, caller(res).accountId));
    },
    updateAccountSettings: [
      jsonBody(),
      async (req, res) => {
        const patch = parseBody(AccountSettingsPatch, req.body);
        res.json(await updateAccountSettings(ctx.db, caller(res).accountId, patch));
      },
    ],
  };
}
