// Which body an endpoint receives: the standard JSON payload, or a chat platform's message chosen
// from the URL's host (auto) or set explicitly on the endpoint.
import type { WebhookPayload } from '../payload.js';
import { discordBody } from './discord.js';
import { googleChatBody } from './googlechat.js';
import { chatMessage } from './message.js';
import { slackBody } from './slack.js';
import { teamsBody } from './teams.js';

export const FORMATS = ['auto', 'standard', 'slack', 'discord', 'teams', 'googlechat'] as const;
export type Format = (typeof FORMATS)[number];
export type BodyFormat = Exclude<Format, 'auto'>;

const DISCORD_HOSTS = new Set(['discord.com', 'discordapp.com', 'ptb.discord.com', 'canary.discord.com']);
const TEAMS_DOMAINS = ['logic.azure.com', 'powerplatform.com', 'webhook.office.com'];
const under = (host: string, domain: string) => host === domain || host.endsWith(`.${domain}`);

/** The format `auto` means for this URL. */
export function detectFormat(url: URL): BodyFormat {
  const host = url.hostname.toLowerCase();
  if (host === 'hooks.slack.com') return 'slack';
  if (DISCORD_HOSTS.has(host) && /^\/api\/(v\d+\/)?webhooks\//.test(url.pathname)) return 'discord';
  if (TEAMS_DOMAINS.some((d) => under(host, d))) return 'teams';
  if (host === 'chat.googleapis.com') return 'googlechat';
  return 'standard';
}

export function bodyFormat(format: Format, url: string): BodyFormat {
  return format === 'auto' ? detectFormat(new URL(url)) : format;
}

const CHAT = { slack: slackBody, discord: discordBody, teams: teamsBody, googlechat: googleChatBody } as const;

/** The request body for one delivery. */
export function renderBody(format: BodyFormat, payload: WebhookPayload): string {
  return JSON.stringify(format === 'standard' ? payload : CHAT[format](chatMessage(payload)));
}
