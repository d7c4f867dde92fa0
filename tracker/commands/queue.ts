// Queuing a command: the row is written and every tracker process is told (NOTIFY), so the one
// holding the device's connection sends it at once; otherwise it waits for the next connection.
import { ApiError } from '../../shared/errors.js';
import type { TrackerContext } from '../context.js';
import type { Device } from '../devices/repository.js';
import { canSend } from '../protocols/registry.js';
import { createCommand, type Command } from './repository.js';

export const COMMANDS_CHANNEL = 'device_commands';

export async function queueLocate(ctx: TrackerContext, device: Device): Promise<Command> {
  // A device that never connected has no known protocol yet: its command waits for the connection.
  if (device.protocol && !canSend(device.protocol, 'locate')) {
    throw new ApiError('conflict', `device ${device.id} speaks ${device.protocol.toUpperCase()}, which has no locate command`);
  }
  const queued = await ctx.db.transaction(async (tx) => {
    const command = await createCommand(tx, { accountId: device.accountId, deviceId: device.id, type: 'locate', ttlSeconds: ctx.config.COMMAND_TTL_SECONDS });
    await tx.query('SELECT pg_notify($1, $2)', [COMMANDS_CHANNEL, JSON.stringify({ deviceId: device.id, commandId: command.id })]);
    return command;
  });
  ctx.metrics.commands.inc({ status: 'queued' });
  return queued;
}
