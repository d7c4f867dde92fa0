// A geofence's page draws it (data-shape, a circle or a polygon) over the base map, fitted to it
// (a track's page has its own script, track-replay.js). The SVG drawing the server sends stays in
// the page for browsers without this script, and is hidden once the map shows.
'use strict';

document.addEventListener('DOMContentLoaded', () => {
  const element = document.getElementById('figure-map');
  if (!element || typeof L === 'undefined') return;
  const data = element.dataset;
  const notice = document.getElementById('figure-notice');
  element.hidden = false;
  for (const drawing of document.querySelectorAll('svg.track')) drawing.setAttribute('hidden', '');

  const map = L.map(element);
  L.tileLayer(data.tiles, { attribution: data.attribution, maxZoom: 19 })
    .once('tileerror', () => {
      notice.textContent = 'The map background could not be loaded; the geofence is still shown.';
      notice.hidden = false;
    })
    .addTo(map);

  const shape = JSON.parse(data.shape);
  const style = { color: '#6a3fb5', weight: 3, fillOpacity: 0.15 };
  const layer =
    shape.type === 'circle'
      ? L.circle([shape.center.lat, shape.center.lng], { ...style, radius: shape.radius })
      : L.polygon(shape.points.map((p) => [p.lat, p.lng]), style);
  layer.addTo(map);
  // A circle knows its bounds only on a map that has a view: they come from its centre and radius.
  const bounds = shape.type === 'circle' ? L.latLng(shape.center.lat, shape.center.lng).toBounds(shape.radius * 2) : layer.getBounds();
  map.fitBounds(bounds.pad(0.1), { maxZoom: 17 });
  window.geofenceView = { map, layer };
});
