// Google Chat incoming webhooks: a cardsV2 card (header, the summary, one decorated text per fact,
// a map button) with fallbackText for notifications, kept under a Chat message's 32,000 bytes.
import { truncate, type ChatMessage } from './message.js';

export const GOOGLE_CHAT_MAX_BYTES = 32_000;
const FALLBACK_MAX = 4096;

/** Card text accepts a small HTML subset. */
const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function card(m: ChatMessage, summaryMax: number, facts: ChatMessage['facts']): object {
  const widgets: object[] = [
    { textParagraph: { text: escape(truncate(m.summary, summaryMax)) } },
    ...facts.map((f) => ({ decoratedText: { topLabel: escape(truncate(f.label, 100)), text: escape(truncate(f.value, 500)), wrapText: true } })),
  ];
  if (m.mapUrl) widgets.push({ buttonList: { buttons: [{ text: 'Open map', onClick: { openLink: { url: m.mapUrl } } }] } });
  return {
    fallbackText: truncate(`${m.title}: ${m.summary}`, FALLBACK_MAX),
    cardsV2: [
      {
        cardId: 'event',
        card: {
          header: { title: truncate(m.title, 200), subtitle: truncate(m.footer, 200) },
          sections: [{ widgets }],
        },
      },
    ],
  };
}

const fits = (body: object) => Buffer.byteLength(JSON.stringify(body)) <= GOOGLE_CHAT_MAX_BYTES;

export function googleChatBody(m: ChatMessage): object {
  for (const summaryMax of [4000, 1000]) {
    const body = card(m, summaryMax, m.facts);
    if (fits(body)) return body;
  }
  return card(m, 200, []);
}
