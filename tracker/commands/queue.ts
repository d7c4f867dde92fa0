// Queuing a command: the row is written and every tracker process is told (NOTIFY), so the one
// holding the device's connection sends it at once; otherwise it waits for the next connection.
import { ApiError } from '../../shared/errors.js';
import type { TrackerContext } from '../context.js';
import type { Device } from '../devices/repository.js';
import { createCommand, type Command } from './repository.js';

export const COMMANDS_CHANNEL = 'device_commands';

/**
 * Protocols whose devices have no single-position request. H02's documented commands set a
 * reporting interval or reboot; none asks for one fix now (see docs/decisions.md).
 */
const NO_LOCATE = new Set(['h02']);

export async function queueLocate(ctx: TrackerContext, device: Device): Promise<Command> {
  if (device.protocol && NO_LOCATE.has(device.protocol)) {
    throw new ApiError('conflict', `device ${device.id} speaks ${device.protocol.toUpperCase()}, which has no locate command`);
  }
  return ctx.db.transaction(async (tx) => {
    const command = await createCommand(tx, { accountId: device.accountId, deviceId: device.id, type: 'locate', ttlSeconds: ctx.config.COMMAND_TTL_SECONDS });
    await tx.query('SELECT pg_notify($1, $2)', [COMMANDS_CHANNEL, JSON.stringify({ deviceId: device.id, commandId: command.id })]);
    return command;
  });
}
