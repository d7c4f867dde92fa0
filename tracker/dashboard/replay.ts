// The track page's replay: the map with the track, its trips and stops marked, the play controls
// and the position table beside it. The markup is a frame holding the period's facts as data;
// assets/track-replay.js fetches the track simplified for the map's zoom and view, plays it and
// pages the table. Without the script the SVG drawing stays and the controls stay hidden.
import type { Stop, Trip } from '../reports/detect.js';
import { html, type Html } from './html.js';
import type { TrackPoint } from './track-svg.js';

/** Trips and stops marked on the map at most, each (a 90-day period of a busy unit has a few thousand). */
export const MAX_MARKED = 2000;
/** Replay speeds, in seconds of the track per second of playing. */
const SPEEDS: readonly [number, string][] = [
  [10, '10×'],
  [60, '1 minute per second'],
  [600, '10 minutes per second'],
  [3600, '1 hour per second'],
  [86_400, '1 day per second'],
];
const DEFAULT_SPEED = 600;

const place = (p: { lat: number; lng: number }) => [p.lat, p.lng];
const seconds = (d: Date) => Math.round(d.getTime() / 1000);

export interface ReplayData {
  /** The track page's query (from, to), for the JSON the script fetches. */
  query: string;
  detailUrl: string;
  positionsUrl: string;
  total: number;
  /** The drawing's thinned points: the map is fitted to them before the detail comes. */
  outline: readonly TrackPoint[];
  trips: readonly Trip[];
  stops: readonly Stop[];
  perPage: number;
}

/** The map's data attributes. */
export function replayData(d: ReplayData): Html {
  const lats = d.outline.map((p) => p.lat);
  const lngs = d.outline.map((p) => p.lng);
  const trips = d.trips.slice(0, MAX_MARKED).map((t) => ({ start: place(t.start), end: place(t.end), from: seconds(t.startTime), to: seconds(t.endTime), km: Math.round(t.distance / 100) / 10, maxKmh: Math.round(t.maxSpeed) }));
  const stops = d.stops.slice(0, MAX_MARKED).map((s) => ({ at: place(s.position), from: seconds(s.startTime), to: seconds(s.endTime) }));
  return html`data-detail="${d.detailUrl}?${d.query}" data-positions="${d.positionsUrl}?${d.query}" data-total="${d.total}" data-per-page="${d.perPage}"
    data-bounds="${JSON.stringify([[Math.min(...lats), Math.min(...lngs)], [Math.max(...lats), Math.max(...lngs)]])}"
    data-trips="${JSON.stringify(trips)}" data-stops="${JSON.stringify(stops)}"`;
}

/**
 * The play controls: play and pause, speed, the position in time; hidden until the script runs.
 * The time beside the slider changes every frame while playing, so it is not announced (the
 * slider's value text says it when the slider has the focus).
 */
export function replayControls(): Html {
  return html`<div id="replay" class="replay" role="group" aria-labelledby="replay-title" hidden>
  <h2 id="replay-title" class="visually-hidden">Replay</h2>
  <button type="button" id="replay-play" class="button replay-play">Play</button>
  <span class="replay-field"><label for="replay-speed">Speed</label>
    <select id="replay-speed">${SPEEDS.map(([value, label]) => html`<option value="${value}"${value === DEFAULT_SPEED ? html` selected` : ''}>${label}</option>`)}</select></span>
  <span class="replay-field replay-slider"><label for="replay-position">Position in the track</label>
    <input type="range" id="replay-position" min="0" max="1000" step="1" value="0"></span>
  <output id="replay-time" for="replay-position" class="replay-time" aria-live="off"></output>
</div>`;
}

/** Trips, stops and positions in a caption line, with the legend of the marks. */
export function replayLegend(total: number, trips: number, stops: number): Html {
  const plural = (n: number, one: string) => `${n.toLocaleString('en-GB')} ${one}${n === 1 ? '' : 's'}`;
  return html`<span class="legend"><span class="legend-trip" aria-hidden="true"></span>${plural(trips, 'trip')}${trips > MAX_MARKED ? ` (the first ${MAX_MARKED} marked)` : ''}</span>
    <span class="legend"><span class="legend-stop" aria-hidden="true"></span>${plural(stops, 'stop')}${stops > MAX_MARKED ? ` (the first ${MAX_MARKED} marked)` : ''}</span>
    <span id="track-count">${plural(total, 'position')}</span>`;
}

/** The position table, a page at a time; a row's button centres the map on it. */
export function positionTable(): Html {
  return html`<section id="positions" class="positions" aria-labelledby="positions-title" hidden>
  <h2 id="positions-title">Positions</h2>
  <div class="positions-scroll">
    <table class="table positions-table">
      <caption id="positions-caption" class="visually-hidden"></caption>
      <thead><tr><th scope="col">Time (UTC)</th><th scope="col">Speed</th><th scope="col">Latitude, longitude</th></tr></thead>
      <tbody id="positions-rows"></tbody>
    </table>
  </div>
  <nav class="positions-pages" aria-label="Pages of positions">
    <button type="button" id="positions-previous" class="button-secondary">Previous</button>
    <span id="positions-page" aria-live="polite"></span>
    <button type="button" id="positions-next" class="button-secondary">Next</button>
  </nav>
</section>`;
}
