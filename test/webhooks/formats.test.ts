// Chat formats: which one a URL gets, and bodies checked against each platform's documented
// structure and limits (Slack Block Kit, Discord embeds, Teams Adaptive Card message, Google Chat
// cardsV2), including names and messages far longer than the limits.
import { describe, expect, test } from '@jest/globals';
import { z } from 'zod';
import { DISCORD_COLOURS } from '../../tracker/webhooks/formats/discord.js';
import { bodyFormat, detectFormat, renderBody } from '../../tracker/webhooks/formats/index.js';
import { eventPayload, testPayload, type WebhookPayload } from '../../tracker/webhooks/payload.js';
import { storedEvent } from '../helpers/webhook-events.js';

// Slack Block Kit, as documented: header text plain_text ≤ 150; section text ≤ 3000; at most 10
// fields of ≤ 2000; context ≤ 10 elements; ≤ 50 blocks.
const plain = (max: number) => z.strictObject({ type: z.literal('plain_text'), text: z.string().min(1).max(max), emoji: z.boolean().optional() });
const mrkdwn = (max: number) => z.strictObject({ type: z.literal('mrkdwn'), text: z.string().min(1).max(max) });
const SlackMessage = z.strictObject({
  text: z.string().min(1).max(3000),
  blocks: z
    .array(
      z.discriminatedUnion('type', [
        z.strictObject({ type: z.literal('header'), text: plain(150) }),
        z.strictObject({ type: z.literal('section'), text: mrkdwn(3000), fields: z.array(mrkdwn(2000)).max(10).optional() }),
        z.strictObject({ type: z.literal('context'), elements: z.array(mrkdwn(3000)).min(1).max(10) }),
      ]),
    )
    .min(1)
    .max(50),
});

// Discord execute-webhook with embeds, as documented: title ≤ 256, description ≤ 4096, ≤ 25 fields
// (name ≤ 256, value ≤ 1024), footer ≤ 2048, all of them ≤ 6000 together; ≤ 10 embeds.
const DiscordMessage = z.strictObject({
  allowed_mentions: z.strictObject({ parse: z.array(z.string()).length(0) }),
  embeds: z
    .array(
      z.strictObject({
        title: z.string().min(1).max(256),
        description: z.string().min(1).max(4096),
        url: z.url().optional(),
        color: z.number().int().min(0).max(0xffffff),
        timestamp: z.iso.datetime(),
        fields: z.array(z.strictObject({ name: z.string().min(1).max(256), value: z.string().min(1).max(1024), inline: z.boolean() })).max(25),
        footer: z.strictObject({ text: z.string().min(1).max(2048) }),
      }),
    )
    .min(1)
    .max(10),
});
const discordTotal = (m: z.infer<typeof DiscordMessage>) =>
  m.embeds.reduce((n, e) => n + e.title.length + e.description.length + e.footer.text.length + e.fields.reduce((k, f) => k + f.name.length + f.value.length, 0), 0);

const device = { id: 'dev_abc', name: 'Van 1', plate: 'B-AC 123', imei: '359633100000001' };
const normal = eventPayload(storedEvent('acc_x', device.id, { type: 'speeding', alert: { id: 7, severity: 'warning', message: 'Speed 112 km/h above the limit of 90 km/h' }, data: { limit: 90, speed: 112 } }), device);
const huge: WebhookPayload = eventPayload(
  storedEvent('acc_x', device.id, {
    type: 'sos',
    alert: { id: 8, severity: 'critical', message: `SOS <!channel> & ${'help '.repeat(3000)}` },
    data: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`key${i}`, '🚚'.repeat(900)])),
  }),
  { ...device, name: `*Tr_uck* [x](http://e.vil) @everyone ${'Ü'.repeat(5000)}`, plate: 'P'.repeat(32) },
);
const controls = eventPayload(storedEvent('acc_x', device.id, { alert: { id: 9, severity: 'info', message: '\u0001'.repeat(30_000) }, data: { note: '\u0002'.repeat(5000) } }), { ...device, name: '\u0003'.repeat(200) });

describe('format chosen from the URL', () => {
  test.each([
    ['https://hooks.slack.com/services/T000/B000/XXXX', 'slack'],
    ['https://discord.com/api/webhooks/123/abc', 'discord'],
    ['https://discordapp.com/api/webhooks/123/abc', 'discord'],
    ['https://discord.com/api/v10/webhooks/123/abc', 'discord'],
    ['https://discord.com/channels/1/2', 'standard'],
    ['https://prod-12.westeurope.logic.azure.com:443/workflows/abc/triggers/manual/paths/invoke?sig=x', 'teams'],
    ['https://default1234.ab.environment.api.powerplatform.com/powerautomate/automations/direct/workflows/x', 'teams'],
    ['https://acme.webhook.office.com/webhookb2/x', 'teams'],
    ['https://chat.googleapis.com/v1/spaces/AAA/messages?key=k&token=t', 'googlechat'],
    ['https://erp.example.com/hooks/fleet', 'standard'],
    ['https://hooks.slack.com.attacker.example/services/x', 'standard'],
    ['https://notlogic.azure.com/x', 'standard'],
  ])('%s → %s', (url, format) => {
    expect(detectFormat(new URL(url))).toBe(format);
  });

  test('the endpoint format overrides the host', () => {
    expect(bodyFormat('slack', 'https://erp.example.com/x')).toBe('slack');
    expect(bodyFormat('standard', 'https://hooks.slack.com/services/x')).toBe('standard');
    expect(bodyFormat('auto', 'https://hooks.slack.com/services/x')).toBe('slack');
  });
});

describe('standard payload', () => {
  test('is the payload as JSON, alert only when there is one', () => {
    expect(JSON.parse(renderBody('standard', normal))).toEqual(normal);
    expect(Object.keys(normal)).toEqual(['id', 'type', 'createdAt', 'device', 'position', 'attributes', 'alert', 'data']);
    const plainEvent = eventPayload(storedEvent('acc_x', device.id, { type: 'device_online', position: null }), device);
    expect('alert' in JSON.parse(renderBody('standard', plainEvent))).toBe(false);
  });
});

describe('Slack', () => {
  test('a Block Kit message with a text fallback, the facts as fields and a map link', () => {
    const body = SlackMessage.parse(JSON.parse(renderBody('slack', normal)));
    expect(body.text).toBe('Speeding: Van 1: Speed 112 km/h above the limit of 90 km/h');
    expect(body.blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: 'Speeding: Van 1', emoji: true } });
    const section = body.blocks[1] as { text: { text: string }; fields: { text: string }[] };
    expect(section.text.text).toContain(':warning:');
    expect(section.text.text).toContain('|Open map>');
    expect(section.fields.map((f) => f.text)).toEqual(expect.arrayContaining(['*Plate*\nB-AC 123', '*IMEI*\n359633100000001', '*Speed*\n42 km/h', '*limit*\n90']));
  });

  test('long names and messages are cut to the limits, and mrkdwn control characters escaped', () => {
    const body = SlackMessage.parse(JSON.parse(renderBody('slack', huge)));
    const header = (body.blocks[0] as { text: { text: string } }).text.text;
    expect(header).toHaveLength(150);
    expect(header.endsWith('…')).toBe(true);
    const section = body.blocks[1] as { text: { text: string } };
    expect(section.text.text).toContain('SOS &lt;!channel&gt; &amp; help');
    expect(section.text.text).not.toMatch(/<!channel>/);
    expect(body.text).not.toMatch(/&[a-z]{0,3}…$/);
  });
});

describe('Discord', () => {
  test('one embed coloured by severity, with a timestamp, mentions off', () => {
    const body = DiscordMessage.parse(JSON.parse(renderBody('discord', normal)));
    const embed = body.embeds[0]!;
    expect(embed.color).toBe(DISCORD_COLOURS.warning);
    expect(embed.timestamp).toBe(normal.position!.timestamp);
    expect(embed.title).toBe('Speeding: Van 1');
    expect(embed.fields).toEqual(expect.arrayContaining([{ name: 'Plate', value: 'B\\-AC 123', inline: true }]));
    expect(DiscordMessage.parse(JSON.parse(renderBody('discord', huge))).embeds[0]!.color).toBe(DISCORD_COLOURS.critical);
  });

  test('every limit holds for huge input, the 6000 total included, and markdown is escaped', () => {
    const body = DiscordMessage.parse(JSON.parse(renderBody('discord', huge)));
    expect(discordTotal(body)).toBeLessThanOrEqual(6000);
    const embed = body.embeds[0]!;
    expect(embed.title).toHaveLength(256);
    expect(embed.title.endsWith('…')).toBe(true);
    const unit = embed.fields.find((f) => f.name === 'Unit')!;
    expect(unit.value.startsWith('\\*Tr\\_uck\\* \\[x\\]\\(http://e.vil\\)')).toBe(true);
    expect(embed.description.endsWith('…')).toBe(true);
  });
});

describe('Teams and Google Chat', () => {
  test.each([normal, huge, controls])('Teams: an Adaptive Card message under 28 KB (%#)', (payload) => {
    const text = renderBody('teams', payload);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(28 * 1024);
    const body = JSON.parse(text);
    expect(body).toMatchObject({ type: 'message', attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', content: { type: 'AdaptiveCard', version: '1.4' } }] });
    expect(body.attachments[0].content.body[0].text.length).toBeGreaterThan(0);
  });

  test.each([normal, huge, controls])('Google Chat: a cardsV2 card with fallback text, under 32,000 bytes (%#)', (payload) => {
    const text = renderBody('googlechat', payload);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(32_000);
    const body = JSON.parse(text);
    expect(body.fallbackText.length).toBeLessThanOrEqual(4096);
    expect(body.cardsV2[0].card.header.title.length).toBeGreaterThan(0);
    expect(body.cardsV2[0].card.sections[0].widgets.length).toBeGreaterThan(0);
  });
});

describe('test message', () => {
  test('renders in every format, also without any device', () => {
    for (const format of ['standard', 'slack', 'discord', 'teams', 'googlechat'] as const) {
      const body = JSON.parse(renderBody(format, testPayload(null)));
      if (format === 'slack') SlackMessage.parse(body);
      if (format === 'discord') DiscordMessage.parse(body);
    }
    expect(JSON.parse(renderBody('standard', testPayload(device)))).toMatchObject({ id: 0, type: 'test', device });
  });
});

describe('telemetry at the event', () => {
  // An SOS pressed with no fix: the telemetry of that report, and the last known position marked as such.
  const noFix = eventPayload(
    storedEvent('acc_x', device.id, {
      createdAt: '2026-11-20T08:05:00.000Z',
      position: { lat: 52.52, lng: 13.405, speed: 0, heading: 0, timestamp: '2026-11-20T07:58:00.000Z', valid: true, lastKnown: true },
      attributes: { ignition: false, alarm: 'sos', power: 12.6, batteryLevel: 80, io: { '239': 0 } },
    }),
    device,
  );

  test('every chat format shows a short telemetry line, the event time and the last known position as such', () => {
    const line = 'Ignition off · Alarm sos · Power 12.6 V · Battery 80 %';
    const slack = SlackMessage.parse(JSON.parse(renderBody('slack', noFix)));
    const fields = (slack.blocks[1] as { fields: { text: string }[] }).fields.map((f) => f.text);
    expect(fields).toEqual(expect.arrayContaining([`*Telemetry*\n${line}`, '*Time*\n2026-11-20 08:05:00 UTC', '*Position*\n52.52000, 13.40500 (last known, 2026-11-20 07:58:00 UTC)']));
    const discord = DiscordMessage.parse(JSON.parse(renderBody('discord', noFix)));
    expect(discord.embeds[0]!.fields).toContainEqual({ name: 'Telemetry', value: line, inline: true });
    expect(renderBody('teams', noFix)).toContain(JSON.stringify({ title: 'Telemetry', value: line }));
    expect(renderBody('googlechat', noFix)).toContain(JSON.stringify({ decoratedText: { topLabel: 'Telemetry', text: line, wrapText: true } }));
    expect(JSON.parse(renderBody('standard', noFix))).toMatchObject({ position: { lastKnown: true, valid: true }, attributes: { alarm: 'sos', power: 12.6, io: { '239': 0 } } });
  });

  test('a report without any of the shown keys adds no line', () => {
    const quiet = eventPayload(storedEvent('acc_x', device.id, { attributes: { io: { '1': 1 } } }), device);
    expect(renderBody('slack', quiet)).not.toContain('Telemetry');
  });
});
