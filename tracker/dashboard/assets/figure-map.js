// A page's figure on the map: a track (data-track, its points in order) drawn as one line with its
// start (green circle) and end (red square) named, over the base map and fitted to it. The SVG
// drawing the server sends stays in the page for browsers without this script, and is hidden once
// the map shows. (Geofences have their own map, assets/geofence-map.js.)
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
      notice.textContent = 'The map background could not be loaded; the track is still shown.';
      notice.hidden = false;
    })
    .addTo(map);

  const points = JSON.parse(data.track);
  const line = L.polyline(points, { color: '#0b5cad', weight: 4, opacity: 0.9 }).addTo(map);
  const start = L.circleMarker(points[0], { radius: 8, color: '#fff', weight: 2, fillColor: '#17693a', fillOpacity: 1 }).bindTooltip(data.startLabel).addTo(map);
  // A square, as in the legend.
  const end = L.marker(points.at(-1), { icon: L.divIcon({ className: 'track-end-marker', iconSize: [14, 14] }), title: data.endLabel, keyboard: false }).bindTooltip(data.endLabel).addTo(map);
  map.fitBounds(line.getBounds().pad(0.05), { maxZoom: 16 });
  // For scripts and tests reading the map.
  window.trackView = { map, line, start, end };
});
