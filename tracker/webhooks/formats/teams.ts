// Microsoft Teams workflow webhooks ("Post to a channel when a webhook request is received"): a
// message with one Adaptive Card attachment (schema 1.4, which Teams renders everywhere), kept under
// the 28 KB a Teams message may carry.
import { truncate, type ChatMessage } from './message.js';

export const TEAMS_MAX_BYTES = 28 * 1024;
const COLOURS = { critical: 'Attention', warning: 'Warning', info: 'Accent' } as const;

function card(m: ChatMessage, summaryMax: number, facts: ChatMessage['facts']): object {
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body: [
            { type: 'TextBlock', text: truncate(m.title, 200), size: 'Medium', weight: 'Bolder', color: COLOURS[m.severity], wrap: true },
            { type: 'TextBlock', text: truncate(m.summary, summaryMax), wrap: true },
            { type: 'FactSet', facts: facts.map((f) => ({ title: truncate(f.label, 100), value: truncate(f.value, 500) })) },
            { type: 'TextBlock', text: truncate(m.footer, 200), isSubtle: true, size: 'Small', wrap: true },
          ],
          ...(m.mapUrl ? { actions: [{ type: 'Action.OpenUrl', title: 'Open map', url: m.mapUrl }] } : {}),
        },
      },
    ],
  };
}

const fits = (body: object) => Buffer.byteLength(JSON.stringify(body)) <= TEAMS_MAX_BYTES;

export function teamsBody(m: ChatMessage): object {
  // Shorter summaries first, then fewer facts: the last try (title, 200 characters, no facts) fits.
  for (const summaryMax of [20_000, 4000, 1000]) {
    const body = card(m, summaryMax, m.facts);
    if (fits(body)) return body;
  }
  return card(m, 200, []);
}
