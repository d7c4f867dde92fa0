// Slack incoming webhooks: a Block Kit message (header, section with fields, context) and the
// top-level text Slack shows in notifications, within Block Kit's documented limits.
import { MAX_FACTS, truncate, type ChatMessage } from './message.js';

export const SLACK_LIMITS = { text: 3000, header: 150, sectionText: 3000, fields: 10, fieldText: 2000, contextText: 3000, blocks: 50 } as const;

const ICONS = { critical: ':rotating_light:', warning: ':warning:', info: ':information_source:' } as const;

/** Slack's mrkdwn reserves &, < and >. */
const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Escaped text cut to max, never leaving half an entity (&am…) behind. */
function fit(escaped: string, max: number): string {
  if (escaped.length <= max) return escaped;
  return `${truncate(escaped, max).slice(0, -1).replace(/&[a-z]{0,3}$/, '')}…`;
}

export function slackBody(m: ChatMessage): object {
  const fields = m.facts.slice(0, Math.min(MAX_FACTS, SLACK_LIMITS.fields)).map((f) => ({
    type: 'mrkdwn',
    text: fit(`*${escape(f.label)}*\n${escape(f.value)}`, SLACK_LIMITS.fieldText),
  }));
  const link = m.mapUrl ? `\n<${escape(m.mapUrl)}|Open map>` : '';
  return {
    text: fit(escape(`${m.title}: ${m.summary}`), SLACK_LIMITS.text),
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: truncate(m.title, SLACK_LIMITS.header), emoji: true } },
      { type: 'section', text: { type: 'mrkdwn', text: `${ICONS[m.severity]} ${fit(escape(m.summary), SLACK_LIMITS.sectionText - 200)}${link}` }, fields },
      { type: 'context', elements: [{ type: 'mrkdwn', text: fit(escape(m.footer), SLACK_LIMITS.contextText) }] },
    ],
  };
}
