// A device's track for a chosen period (at most 90 days, as the API allows): the replay on the map
// with its trips and stops (computed here by the reports' code) and the position table, the SVG
// drawing for browsers without the script, and the JSON the replay's script fetches: the track
// simplified for the map's zoom and view, and the table's pages. Times are entered and shown in UTC.
import { Router } from 'express';
import { z } from 'zod';
import type { TrackerContext } from '../../context.js';
import { MAX_RANGE_DAYS } from '../../positions/range.js';
import { rangePieces } from '../../reports/day-cache.js';
import { detect } from '../../reports/detect.js';
import { tripSettings } from '../../reports/settings.js';
import { errorSummary, errorsOf, field, formValues, type FormErrors } from '../forms.js';
import { html, type Html } from '../html.js';
import { page, when } from '../layout.js';
import { baseMapData } from '../map-tiles.js';
import type { AssetName } from '../assets.js';
import { positionTable, replayControls, replayData, replayLegend } from '../replay.js';
import { sessionOf } from '../security.js';
import { trackDetail } from '../track-detail.js';
import { stamp, trackSvg } from '../track-svg.js';
import { loadTrack, POSITIONS_PER_PAGE, trackPositions } from '../track.js';
import { deviceUrl, ownDevice } from './devices.js';

const DAY_MS = 86_400_000;
/** The longest the simplification of a track may run (the gateway's UPSTREAM_TIMEOUT_MS default). */
const DETAIL_TIMEOUT_MS = 10_000;
/** SQLSTATE of a statement stopped by statement_timeout. */
const QUERY_CANCELED = '57014';

const REPLAY_ASSETS: readonly AssetName[] = ['leaflet.css', 'leaflet.js', 'track-replay.js'];
const PRESETS: readonly [string, number][] = [['Last 24 hours', 1], ['Last 7 days', 7], ['Last 30 days', 30], [`Last ${MAX_RANGE_DAYS} days`, MAX_RANGE_DAYS]];

/** The value a datetime-local field holds: minutes, no zone (read as UTC here). */
const localInput = (d: Date) => d.toISOString().slice(0, 16);

const utcTime = (what: string) =>
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/, { message: `${what} must be a date and time such as 2026-11-21T09:30`, abort: true })
    .transform((v, issue) => {
      const t = new Date(`${v}Z`);
      // Date would roll 2026-02-31 over into March; a day that does not exist is refused instead.
      if (Number.isNaN(t.getTime()) || t.toISOString().slice(0, 16) !== v.slice(0, 16)) {
        issue.addIssue({ code: 'custom', message: `${what} is not a real date` });
        return z.NEVER;
      }
      return t;
    });

const Period = z.object({ from: utcTime('start'), to: utcTime('end') }).superRefine((p, issue) => {
  // Runs even when a field had a problem; then there is nothing to compare.
  if (!(p.from instanceof Date) || !(p.to instanceof Date)) return;
  if (p.from > p.to) issue.addIssue({ code: 'custom', path: ['to'], message: 'end must not be before start' });
  else if (p.to.getTime() - p.from.getTime() > MAX_RANGE_DAYS * DAY_MS) issue.addIssue({ code: 'custom', path: ['to'], message: `the period may span at most ${MAX_RANGE_DAYS} days` });
});

const degrees = (min: number, max: number) => z.coerce.number().min(min).max(max);
/** The replay's request for the track: the period, the map's zoom and, once zoomed in, its view. */
const DetailQuery = z
  .object({
    zoom: z.coerce.number().int().min(0).max(22),
    west: degrees(-180, 180).optional(),
    south: degrees(-90, 90).optional(),
    east: degrees(-180, 180).optional(),
    north: degrees(-90, 90).optional(),
  })
  .refine((q) => [q.west, q.south, q.east, q.north].every((v) => v === undefined) || (q.west !== undefined && q.south !== undefined && q.east !== undefined && q.north !== undefined && q.south <= q.north), {
    message: 'give west, south, east and north together, south not north of north',
  });
/** The position table's page: 90 days of a position a second fit in this many. */
const PageQuery = z.object({ page: z.coerce.number().int().min(1).max(Math.ceil((MAX_RANGE_DAYS * 86_400) / POSITIONS_PER_PAGE)) });

/** A query of the replay's JSON, or a 400 naming what is wrong (and nothing read). */
function parseJsonQuery<T extends z.ZodType>(schema: T, query: unknown): { period: { from: Date; to: Date }; extra: z.infer<T> } | { error: string } {
  const values = formValues(query);
  const period = Period.safeParse(values);
  const extra = schema.safeParse(values);
  if (!period.success) return { error: period.error.issues.map((i) => i.message).join('; ') };
  if (!extra.success) return { error: extra.error.issues.map((i) => `${i.path.join('.') || 'query'}: ${i.message}`).join('; ') };
  return { period: period.data, extra: extra.data };
}

export function trackPage(ctx: TrackerContext): Router {
  const router = Router();

  router.get('/devices/:id/track', async (req, res) => {
    const session = sessionOf(res);
    const device = await ownDevice(ctx, res, req.params.id);
    const now = new Date(Math.floor(Date.now() / 60_000) * 60_000 + 60_000);
    const query = formValues(req.query);
    const values = { from: query.from ?? localInput(new Date(now.getTime() - DAY_MS)), to: query.to ?? localInput(now) };
    const parsed = Period.safeParse(values);
    const errors: FormErrors = parsed.success ? {} : errorsOf(parsed.error);
    const base = `${deviceUrl(device.id)}/track`;

    let result: Html;
    if (!parsed.success) {
      result = html``;
    } else {
      const { from, to } = parsed.data;
      const { total, points } = await loadTrack(ctx.db, device.id, from, to);
      const settings = (await tripSettings(ctx.db, session.accountId, [device.id])).get(device.id)!;
      const { trips, stops } = points.length === 0 ? { trips: [], stops: [] } : detect(await rangePieces(ctx.reads, ctx.db, [device.id], from, to), settings);
      const query = new URLSearchParams({ from: values.from, to: values.to }).toString();
      result =
        points.length === 0
          ? html`<div class="empty"><p><strong>No positions in this period.</strong></p><p>Choose another period, or check on the device page when it last reported.</p></div>`
          : html`<div class="replay-layout">
<figure class="track-figure">
  <div id="figure-map" class="figure-map" role="region" aria-label="Map of the track" hidden ${baseMapData(ctx.config)}
    ${replayData({ query, detailUrl: `${base}.json`, positionsUrl: `${deviceUrl(device.id)}/positions.json`, total, outline: points, trips, stops, perPage: POSITIONS_PER_PAGE })}
    data-start-label="${`Start: ${stamp(points[0]!.time)}`}" data-end-label="${`End: ${stamp(points.at(-1)!.time)}`}"></div>
  ${trackSvg(points, `Track of ${device.name} from ${from.toISOString()} to ${to.toISOString()}`)}
  ${replayControls()}
  <figcaption>
    <span class="legend"><span class="legend-start" aria-hidden="true"></span>Start ${when(points[0]!.time)}</span>
    <span class="legend"><span class="legend-end" aria-hidden="true"></span>End ${when(points.at(-1)!.time)}</span>
    ${replayLegend(total, trips.length, stops.length)}
  </figcaption>
  <p id="figure-notice" class="figure-notice" aria-live="polite" hidden></p>
</figure>
${positionTable()}
</div>`;
    }

    res.status(parsed.success ? 200 : 400).send(
      page(
        { title: `Track of ${device.name}`, session, section: 'devices', assets: REPLAY_ASSETS, before: html`<p class="back"><a href="${deviceUrl(device.id)}">← ${device.name}</a></p>` },
        html`${errorSummary(errors)}
<form method="get" action="${base}" class="form form-inline" novalidate>
  ${field({ name: 'from', label: 'From (UTC)', type: 'datetime-local', required: true }, values.from, errors.from)}
  ${field({ name: 'to', label: 'To (UTC)', type: 'datetime-local', required: true }, values.to, errors.to)}
  <button type="submit" class="button">Show track</button>
</form>
<p class="presets">${PRESETS.map(
          ([label, days]) => html`<a href="${base}?${new URLSearchParams({ from: localInput(new Date(now.getTime() - days * DAY_MS)), to: localInput(now) }).toString()}">${label}</a> `,
        )}</p>
${result}`,
      ),
    );
  });

  // The track simplified for the map's zoom and view (track-detail.ts), read where reads that
  // tolerate lag go. Past the gateway's wait for an answer (UPSTREAM_TIMEOUT_MS) nobody reads it:
  // the query stops there rather than keep the database busy.
  router.get('/devices/:id/track.json', async (req, res) => {
    const device = await ownDevice(ctx, res, req.params.id);
    const q = parseJsonQuery(DetailQuery, req.query);
    if ('error' in q) return void res.status(400).json({ error: q.error });
    const { zoom, west, south, east, north } = q.extra;
    const bounds = west === undefined ? null : { west, south: south!, east: east!, north: north! };
    try {
      const detail = await ctx.reads.transaction(async (tx) => {
        await tx.query(`SET LOCAL statement_timeout = ${DETAIL_TIMEOUT_MS}`);
        return trackDetail(tx, device.id, q.period.from, q.period.to, { zoom, bounds });
      });
      res.set('Cache-Control', 'no-store').json(detail);
    } catch (err) {
      if ((err as { code?: unknown }).code !== QUERY_CANCELED) throw err;
      res.status(503).set('Retry-After', '30').json({ error: 'the track of this period took too long to draw; choose a shorter period' });
    }
  });

  // A page of the position table.
  router.get('/devices/:id/positions.json', async (req, res) => {
    const device = await ownDevice(ctx, res, req.params.id);
    const q = parseJsonQuery(PageQuery, req.query);
    if ('error' in q) return void res.status(400).json({ error: q.error });
    res.set('Cache-Control', 'no-store').json({ positions: await trackPositions(ctx.db, device.id, q.period.from, q.period.to, q.extra.page) });
  });

  return router;
}
