// The fleet view at the top of the devices page (the dashboard's home): a map with every device
// as a marker, the account's geofences under them, and a searchable list beside it. The markup is
// a frame; assets/fleet-map.js draws it from GET /dashboard/fleet.json, moves the markers from the
// live feed (GET /dashboard/stream) and polls the JSON for the rest. Without the script the devices table below the map says everything.
import { Router } from 'express';
import type { TrackerContext } from '../../context.js';
import { listDevices, type Device } from '../../devices/repository.js';
import { listGeofences, MAX_GEOFENCES_PER_ACCOUNT } from '../../geofences/repository.js';
import { accountTelemetry, type LatestTelemetry } from '../../positions/latest-telemetry.js';
import type { AssetName } from '../assets.js';
import { html, type Html } from '../html.js';
import { BASE } from '../layout.js';
import { baseMapData } from '../map-tiles.js';
import { sessionOf } from '../security.js';
import { TELEMETRY_ROWS } from './device-telemetry.js';

/** What the fleet view's page links besides the shared files, in load order. */
export const FLEET_ASSETS: readonly AssetName[] = ['leaflet.css', 'MarkerCluster.css', 'MarkerCluster.Default.css', 'leaflet.js', 'leaflet.markercluster.js', 'fleet-map.js'];

/** How often the page asks for the devices again while its live stream is down, in milliseconds. */
const POLL_MS = 5000;
/** …and while the stream moves the markers (statuses, telemetry, devices added or removed). */
const LIVE_POLL_MS = 60_000;

/**
 * A device as the public API shows it (GET /devices), plus its heading for the marker's arrow, so
 * that the live feed's devices can be drawn by the same function.
 */
function fleetDevice(d: Device, telemetry: LatestTelemetry['telemetry'] | undefined) {
  const located = d.lastLat !== null && d.lastLng !== null && Number.isFinite(d.lastLat) && Number.isFinite(d.lastLng);
  return {
    id: d.id,
    name: d.name,
    plate: d.plate,
    imei: d.imei,
    status: d.status,
    speed: Number.isFinite(d.lastSpeed) ? d.lastSpeed : null,
    heading: d.lastHeading !== null && Number.isFinite(d.lastHeading) ? d.lastHeading : null,
    position: located ? { lat: d.lastLat!, lng: d.lastLng! } : null,
    lastUpdate: d.lastUpdate ? d.lastUpdate.toISOString() : null,
    telemetry: telemetry ?? {},
  };
}

/** The fleet view's frame, with the account's geofences and the base map's settings as data. */
export async function fleetView(ctx: TrackerContext, accountId: string): Promise<Html> {
  const geofences = await listGeofences(ctx.db, accountId, null, MAX_GEOFENCES_PER_ACCOUNT);
  const shapes = geofences.map((g) => ({ id: g.id, name: g.name, shape: g.shape }));
  return html`<section class="fleet" aria-labelledby="fleet-title">
  <h2 id="fleet-title" class="visually-hidden">Map of the fleet</h2>
  <div class="fleet-side">
    <label for="fleet-search">Search devices</label>
    <input id="fleet-search" type="search" maxlength="100" autocomplete="off" aria-controls="fleet-list" placeholder="Name, plate or identifier">
    <p id="fleet-count" class="fleet-count muted" aria-live="polite"></p>
    <ul id="fleet-list" class="fleet-list" aria-label="Devices on the map"></ul>
  </div>
  <div class="fleet-main">
    <div id="fleet-map" class="fleet-map" role="region" aria-label="Map" ${baseMapData(ctx.config)}
      data-devices="${BASE}/fleet.json" data-device-pages="${BASE}/devices/" data-geofence-pages="${BASE}/geofences/" data-poll-ms="${POLL_MS}" data-live-poll-ms="${LIVE_POLL_MS}" data-stream="${BASE}/stream"
      data-geofences="${JSON.stringify(shapes)}" data-telemetry="${JSON.stringify(TELEMETRY_ROWS.filter((r) => r.brief))}"></div>
    <p class="fleet-legend"><span class="dot dot-moving" aria-hidden="true"></span>Moving (over 2 km/h) <span class="dot dot-stopped" aria-hidden="true"></span>Stopped <span class="dot dot-offline" aria-hidden="true"></span>Offline</p>
    <p id="fleet-notice" class="fleet-notice" aria-live="polite" hidden></p>
  </div>
</section>`;
}

export function fleetPages(ctx: TrackerContext): Router {
  const router = Router();

  // The devices of the signed-in owner's account; polled by the fleet view.
  router.get('/fleet.json', async (_req, res) => {
    const { accountId } = sessionOf(res);
    const [devices, telemetry] = await Promise.all([listDevices(ctx.db, accountId), accountTelemetry(ctx.db, accountId)]);
    res.set('Cache-Control', 'no-store').json({ devices: devices.map((d) => fleetDevice(d, telemetry.get(d.id))) });
  });

  return router;
}
