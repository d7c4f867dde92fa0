// locateDevice queues a locate command (its own route, older than sendCommand); getCommand tells what became of it.
import { text } from 'express';
import { ApiError } from '../../shared/errors.js';
import type { TrackerContext } from '../context.js';
import { queueCommand } from '../commands/queue.js';
import { findCommand } from '../commands/repository.js';
import { callerDevice } from './devices.js';
import { presentCommand } from '../commands/present.js';
import type { Handlers } from './operations.js';
import { caller } from './request.js';

/** A body is optional; when present it must be a JSON object. */
function requireObjectBody(body: unknown): void {
  if (typeof body !== 'string' || body.trim() === '') return;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new ApiError('bad_request', 'the body must be a JSON object');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new ApiError('bad_request', 'the body must be a JSON object');
}

export function locateHandlers(ctx: TrackerContext): Handlers {
  return {
    locateDevice: [
      text({ type: () => true, limit: '16kb' }),
      async (req, res) => {
        requireObjectBody(req.body);
        const { accountId, tokenId } = caller(res);
        const device = await callerDevice(ctx, accountId, req.params.id as string);
        const command = await queueCommand(ctx, device, { tokenId }, 'locate');
        res.json({ ok: true, queued: true, commandId: command.id });
      },
    ],
    async getCommand(req, res) {
      const { accountId } = caller(res);
      const device = await callerDevice(ctx, accountId, req.params.id as string);
      const command = await findCommand(ctx.db, accountId, device.id, req.params.commandId as string);
      if (!command) throw new ApiError('not_found', `no command ${req.params.commandId as string} for device ${device.id}`);
      res.json(presentCommand(command));
    },
  };
}
