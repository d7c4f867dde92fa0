// The text of a custom command, for protocols whose commands are text: a payload given as hex
// cannot travel there, and is refused (400 at the API) rather than sent as an empty command.
import type { CommandParams } from './types.js';

export function customText(protocol: string, params: CommandParams): string {
  if (params.text === undefined) throw new RangeError(`${protocol} custom commands are text (attributes.text)`);
  return params.text;
}
