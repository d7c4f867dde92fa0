// What a command carries besides its type, as the public API and the dashboard's command form take
// it: the bounds of each attribute, and which type takes which (setInterval its period, custom one
// payload, the rest none). Both refuse the same input with the same words.
import { z } from 'zod';
import { ApiError } from '../../shared/errors.js';
import type { CommandParams, CommandType } from '../protocols/types.js';

export const COMMAND_TYPES = ['locate', 'engineStop', 'engineResume', 'reboot', 'setInterval', 'custom'] as const satisfies readonly CommandType[];

/** Bounds of what a command carries: a period a unit accepts, and a payload that fits one frame. */
export const INTERVAL_SECONDS = { min: 10, max: 86_400 };
export const CUSTOM_MAX_CHARS = 200;

export const intervalField = z.number().int('must be a whole number of seconds').min(INTERVAL_SECONDS.min).max(INTERVAL_SECONDS.max);
export const customTextField = z
  .string()
  .min(1, 'must not be empty')
  .max(CUSTOM_MAX_CHARS, `must be at most ${CUSTOM_MAX_CHARS} characters`)
  .regex(/^[\x20-\x7e]+$/, 'must be printable ASCII');
export const customHexField = z
  .string()
  .min(2, 'must hold at least one byte')
  .max(CUSTOM_MAX_CHARS * 2, `must be at most ${CUSTOM_MAX_CHARS} bytes (${CUSTOM_MAX_CHARS * 2} hex digits)`)
  .regex(/^(?:[0-9a-fA-F]{2})+$/, 'must be an even number of hex digits');

/** Which attribute each type takes; a missing one, a stray one, or both payloads of custom, is a 400 naming the field. */
export function checkAttributes(type: CommandType, params: CommandParams): void {
  const given = Object.keys(params);
  const allowed = type === 'setInterval' ? ['seconds'] : type === 'custom' ? ['text', 'hex'] : [];
  const stray = given.find((k) => !allowed.includes(k));
  if (stray) throw new ApiError('bad_request', `invalid body field "attributes.${stray}": ${type} takes ${allowed.length ? allowed.join(' or ') : 'no attributes'}`);
  if (type === 'setInterval' && params.seconds === undefined) throw new ApiError('bad_request', 'invalid body field "attributes.seconds": is required for setInterval');
  if (type === 'custom' && given.length !== 1) throw new ApiError('bad_request', 'invalid body field "attributes.text": custom takes exactly one of text or hex');
}
