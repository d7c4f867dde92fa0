// Queuing a command: the row is written and every tracker process is told (NOTIFY), so the one
// holding the device's connection sends it at once; otherwise it waits for the next connection.
import { ApiError } from '../../shared/errors.js';
import type { TrackerContext } from '../context.js';
import type { Device } from '../devices/repository.js';
import { canSend, encodeCommand } from '../protocols/registry.js';
import type { CommandParams, CommandType } from '../protocols/types.js';
import { createCommand, type Command, type CommandSender } from './repository.js';

export const COMMANDS_CHANNEL = 'device_commands';

/** How long an engine stop may wait for its unit: its own short life, never longer than any command's. */
export const engineStopTtlSeconds = (config: TrackerContext['config']) => Math.min(config.ENGINE_STOP_TTL_SECONDS, config.COMMAND_TTL_SECONDS);

export async function queueCommand(ctx: TrackerContext, device: Device, sender: CommandSender, type: CommandType, attributes: CommandParams = {}): Promise<Command> {
  // A device that never connected has no known protocol yet: its command waits for the connection,
  // and fails then if the protocol turns out not to have it.
  if (device.protocol && !canSend(device.protocol, type)) {
    throw new ApiError('conflict', `device ${device.id} speaks ${device.protocol.toUpperCase()}, which has no ${type} command`);
  }
  if (device.protocol) {
    // Encoding once now refuses what the protocol cannot carry (hex for a text protocol, a text too long) with a 400.
    try {
      encodeCommand(device.protocol, type, 1, { ...attributes, identity: device.imei });
    } catch (err) {
      throw new ApiError('bad_request', `invalid attributes: ${(err as Error).message}`);
    }
  }
  const engineStop = type === 'engineStop';
  // Cutting the engine of a moving vehicle is how immobilisers cause accidents: refused while the
  // last reported speed is above the limit, and never left waiting long enough to fire much later.
  if (engineStop && device.lastSpeed > ctx.config.ENGINE_STOP_MAX_SPEED_KMH) {
    throw new ApiError('conflict', `device ${device.id} last reported ${device.lastSpeed} km/h: engine stop is refused above ${ctx.config.ENGINE_STOP_MAX_SPEED_KMH} km/h`);
  }
  const ttlSeconds = engineStop ? engineStopTtlSeconds(ctx.config) : ctx.config.COMMAND_TTL_SECONDS;
  const queued = await ctx.db.transaction(async (tx) => {
    const command = await createCommand(tx, { accountId: device.accountId, deviceId: device.id, type, attributes, sender, ttlSeconds });
    await tx.query('SELECT pg_notify($1, $2)', [COMMANDS_CHANNEL, JSON.stringify({ deviceId: device.id, commandId: command.id })]);
    return command;
  });
  ctx.metrics.commands.inc({ status: 'queued' });
  ctx.feed.commands([queued]);
  return queued;
}
