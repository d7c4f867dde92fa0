// The geofences pages' map: the account's geofences over the base map, and the tools to draw one
// with the mouse (a polygon corner by corner, a circle by its centre and edge) and reshape it by
// dragging its handles. The drawing and the page's geofence form stay in step both ways
// (assets/geofence-map.js); the form is what is saved, so the typed fields stay the precise and
// the keyboard way. The markup is a frame the script reveals: without it, the page is the list
// and the form.
import type { TrackerContext } from '../../context.js';
import { listGeofences, MAX_GEOFENCES_PER_ACCOUNT, type Geofence } from '../../geofences/repository.js';
import { MAX_POLYGON_POINTS, MAX_RADIUS_M } from '../../geofences/shape.js';
import type { AssetName } from '../assets.js';
import { html, type Html } from '../html.js';
import { BASE } from '../layout.js';
import { baseMapData } from '../map-tiles.js';

export const GEOFENCE_MAP_ASSETS: readonly AssetName[] = ['leaflet.css', 'leaflet.js', 'geofence-map.js'];

/** The id of the geofence form the map fills in and follows. */
export const GEOFENCE_FORM_ID = 'geofence-form';

/**
 * The map with the account's geofences; `edited` is the geofence of the page (drawn with its
 * handles, the others faint), or null on the list, where a drawing starts a new one.
 */
export async function geofenceMap(ctx: TrackerContext, accountId: string, edited: Geofence | null): Promise<Html> {
  const geofences = await listGeofences(ctx.db, accountId, null, MAX_GEOFENCES_PER_ACCOUNT);
  const shapes = geofences.map((g) => ({ id: g.id, name: g.name, shape: g.shape }));
  const label = edited ? `Map of ${edited.name}` : 'Map of the geofences';
  return html`<div class="geofence-map">
  <div id="geofence-tools" class="map-tools" role="toolbar" aria-label="Drawing tools" aria-describedby="geofence-tools-hint" hidden>
    <button type="button" class="button-secondary" data-draw="polygon" aria-pressed="false">${edited ? 'Redraw as a polygon' : 'Draw a polygon'}</button>
    <button type="button" class="button-secondary" data-draw="circle" aria-pressed="false">${edited ? 'Redraw as a circle' : 'Draw a circle'}</button>
    <button type="button" class="button-secondary" data-finish hidden>Finish polygon</button>
    <button type="button" class="button-secondary" data-cancel hidden>Cancel drawing</button>
  </div>
  <p id="geofence-tools-hint" class="hint" hidden>${
    edited
      ? 'Drag a corner, or the circle’s centre or edge, to reshape it. With the keyboard, type the values in the form below: the map follows them.'
      : 'Draw with the mouse, then name the geofence in the form below. With the keyboard, type the values in the form: the map follows them.'
  }</p>
  <p id="geofence-status" class="map-status" aria-live="polite"></p>
  <div id="figure-map" class="figure-map" role="region" aria-label="${label}" hidden ${baseMapData(ctx.config)}
    data-geofences="${JSON.stringify(shapes)}" data-edited="${edited?.id ?? ''}" data-pages="${BASE}/geofences/" data-form="${GEOFENCE_FORM_ID}"
    data-max-points="${MAX_POLYGON_POINTS}" data-max-radius="${MAX_RADIUS_M}"></div>
  <p id="figure-notice" class="figure-notice" aria-live="polite" hidden></p>
</div>`;
}
