// Discord webhooks: one embed coloured by severity, with a timestamp, within Discord's documented
// embed limits (6000 characters in all, 256 title, 4096 description, 25 fields…). Mentions are
// switched off so a unit named "@everyone" pings nobody.
import { truncate, type ChatMessage } from './message.js';

export const DISCORD_LIMITS = { title: 256, description: 4096, fields: 25, fieldName: 256, fieldValue: 1024, footer: 2048, total: 6000 } as const;

export const DISCORD_COLOURS = { critical: 0xd32f2f, warning: 0xf9a825, info: 0x1e88e5 } as const;

/** Markdown that would format or link text taken from device names and alert messages. */
const escape = (s: string) => s.replace(/[\\*_~`|>[\]()#-]/g, '\\$&');

/** Escaped text cut to max, never ending on a lone escaping backslash. */
function fit(text: string, max: number): string {
  const escaped = escape(text);
  if (escaped.length <= max) return escaped;
  return `${truncate(escaped, max).slice(0, -1).replace(/(?<!\\)((?:\\\\)*)\\$/, '$1')}…`;
}

export function discordBody(m: ChatMessage): object {
  const title = truncate(m.title, DISCORD_LIMITS.title);
  const footer = truncate(m.footer, DISCORD_LIMITS.footer);
  const fields = m.facts.slice(0, DISCORD_LIMITS.fields).map((f) => ({
    name: truncate(f.label, DISCORD_LIMITS.fieldName),
    value: fit(f.value, DISCORD_LIMITS.fieldValue),
    inline: true,
  }));
  const size = () => title.length + footer.length + fields.reduce((n, f) => n + f.name.length + f.value.length, 0);
  while (fields.length > 0 && size() > DISCORD_LIMITS.total - 100) fields.pop();
  const description = fit(m.summary, Math.min(DISCORD_LIMITS.description, DISCORD_LIMITS.total - size()));
  return {
    allowed_mentions: { parse: [] },
    embeds: [
      {
        title,
        description,
        ...(m.mapUrl ? { url: m.mapUrl } : {}),
        color: DISCORD_COLOURS[m.severity],
        timestamp: m.timestamp,
        fields,
        footer: { text: footer },
      },
    ],
  };
}
