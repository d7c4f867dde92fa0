// A device's track for a chosen period (at most 90 days, as the API allows), drawn as SVG. Times
// are entered and shown in UTC.
import { Router } from 'express';
import { z } from 'zod';
import type { TrackerContext } from '../../context.js';
import { MAX_RANGE_DAYS } from '../../positions/range.js';
import { errorSummary, errorsOf, field, formValues, type FormErrors } from '../forms.js';
import { html, type Html } from '../html.js';
import { page, when } from '../layout.js';
import { baseMapData, FIGURE_MAP_ASSETS } from '../map-tiles.js';
import { sessionOf } from '../security.js';
import { stamp, trackSvg } from '../track-svg.js';
import { loadTrack } from '../track.js';
import { deviceUrl, ownDevice } from './devices.js';

const DAY_MS = 86_400_000;
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
      const { total, points } = await loadTrack(ctx.db, device.id, parsed.data.from, parsed.data.to);
      result =
        points.length === 0
          ? html`<div class="empty"><p><strong>No positions in this period.</strong></p><p>Choose another period, or check on the device page when it last reported.</p></div>`
          : html`<figure class="track-figure">
  <div id="figure-map" class="figure-map" role="region" aria-label="Map of the track" hidden ${baseMapData(ctx.config)}
    data-track="${JSON.stringify(points.map((p) => [p.lat, p.lng]))}" data-start-label="${`Start: ${stamp(points[0]!.time)}`}" data-end-label="${`End: ${stamp(points.at(-1)!.time)}`}"></div>
  ${trackSvg(points, `Track of ${device.name} from ${parsed.data.from.toISOString()} to ${parsed.data.to.toISOString()}`)}
  <figcaption>
    <span class="legend"><span class="legend-start" aria-hidden="true"></span>Start ${when(points[0]!.time)}</span>
    <span class="legend"><span class="legend-end" aria-hidden="true"></span>End ${when(points.at(-1)!.time)}</span>
    <span>${total} position${total === 1 ? '' : 's'}${points.length < total ? `, ${points.length} drawn` : ''}</span>
  </figcaption>
  <p id="figure-notice" class="figure-notice" aria-live="polite" hidden></p>
</figure>`;
    }

    res.status(parsed.success ? 200 : 400).send(
      page(
        { title: `Track of ${device.name}`, session, section: 'devices', assets: FIGURE_MAP_ASSETS, before: html`<p class="back"><a href="${deviceUrl(device.id)}">← ${device.name}</a></p>` },
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

  return router;
}
