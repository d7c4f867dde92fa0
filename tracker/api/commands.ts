// sendCommand queues any command type; listCommands is the unit's command log (who sent what, and
// what became of it); listCommandTypes tells what the unit's protocol can be sent.
import { checkAttributes } from '../commands/attributes.js';
import { queueCommand } from '../commands/queue.js';
import { listCommands } from '../commands/repository.js';
import { commandTypes } from '../protocols/registry.js';
import { createdCursorOf, decodeCreatedCursor, DEFAULT_LIST_LIMIT, pageBody } from '../storage/paging.js';
import type { TrackerContext } from '../context.js';
import { callerDevice } from './devices.js';
import { ListQuery } from './metadata-schemas.js';
import type { Handlers } from './operations.js';
import { presentCommand } from '../commands/present.js';
import { caller, jsonBody, parseBody, parseQuery } from './request.js';
import { CommandBody } from './schemas.js';

export function commandsHandlers(ctx: TrackerContext): Handlers {
  return {
    sendCommand: [
      jsonBody(),
      async (req, res) => {
        const body = parseBody(CommandBody, req.body);
        const attributes = body.attributes ?? {};
        checkAttributes(body.type, attributes);
        const { accountId, tokenId } = caller(res);
        const device = await callerDevice(ctx, accountId, req.params.id as string);
        const command = await queueCommand(ctx, device, { tokenId }, body.type, attributes);
        res.json({ ok: true, queued: true, commandId: command.id });
      },
    ],
    async listCommands(req, res) {
      const q = parseQuery(ListQuery, req.query);
      const { accountId } = caller(res);
      const device = await callerDevice(ctx, accountId, req.params.id as string);
      const limit = q.limit ?? DEFAULT_LIST_LIMIT;
      const rows = await listCommands(ctx.db, { accountId, deviceId: device.id, before: decodeCreatedCursor(q.cursor), limit: limit + 1 });
      res.json(pageBody(rows, limit, q.limit !== undefined, createdCursorOf, presentCommand));
    },
    async listCommandTypes(req, res) {
      const { accountId } = caller(res);
      const device = await callerDevice(ctx, accountId, req.params.id as string);
      res.json({ protocol: device.protocol, types: device.protocol ? commandTypes(device.protocol) : [] });
    },
  };
}
