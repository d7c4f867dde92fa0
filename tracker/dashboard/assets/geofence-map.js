// The geofences pages' map (pages/geofence-map.ts): the account's geofences over the base map, each
// named and linking to its page, and drawing on Leaflet's own API. "Draw a polygon": each click
// places a corner; a click on the first corner, a double click or "Finish polygon" closes it.
// "Draw a circle": a click at the centre, a click at the edge. The shape of the page's form is
// drawn with draggable handles (the corners; the circle's centre and a point of its edge). Every
// drawing or drag writes the form's fields, and every change typed in the form redraws the shape,
// so the form, which is what is saved and checked by the API's rules, always says what the map
// shows. Nothing is written into a style attribute (the Content-Security-Policy forbids them).
'use strict';

document.addEventListener('DOMContentLoaded', () => {
  const element = document.getElementById('figure-map');
  const form = element && document.getElementById(element.dataset.form);
  if (!form || typeof L === 'undefined') return;
  const data = element.dataset;
  const tools = document.getElementById('geofence-tools');
  const hint = document.getElementById('geofence-tools-hint');
  const status = document.getElementById('geofence-status');
  const notice = document.getElementById('figure-notice');
  const maxCorners = Number(data.maxPoints) - 1; // the API counts the closing point
  const maxRadius = Number(data.maxRadius);
  const field = (name) => form.elements.namedItem(name);
  const say = (text) => (status.textContent = text);

  for (const hidden of [element, tools, hint]) hidden.hidden = false;
  for (const drawing of document.querySelectorAll('svg.track')) drawing.setAttribute('hidden', '');

  const map = L.map(element, { doubleClickZoom: false }).setView([20, 0], 2);
  L.tileLayer(data.tiles, { attribution: data.attribution, maxZoom: 19 })
    .once('tileerror', () => {
      notice.textContent = `The map background could not be loaded; the ${data.edited ? 'geofence is' : 'geofences are'} still shown.`;
      notice.hidden = false;
    })
    .addTo(map);

  const EDITED = { color: '#6a3fb5', weight: 3, fillOpacity: 0.15 };
  const CROSSED = { color: '#b3261e', weight: 3, fillOpacity: 0.15 };
  const OTHER = { color: '#6a3fb5', weight: 1.5, opacity: 0.6, fillOpacity: 0.06, dashArray: '4 4' };
  const DRAFT = { color: '#0b5cad', weight: 2, dashArray: '6 4', interactive: false };

  const layerOf = (shape, style) =>
    shape.type === 'circle' ? L.circle([shape.center.lat, shape.center.lng], { ...style, radius: shape.radius }) : L.polygon(shape.corners, style);
  /** A circle knows its bounds only on a map with a view: they come from its centre and radius. */
  const boundsOf = (shape) => (shape.type === 'circle' ? L.latLng(shape.center.lat, shape.center.lng).toBounds(shape.radius * 2) : L.latLngBounds(shape.corners));
  /** The API's shape ({ points } closed) as the editor holds it ({ corners }, not closed). */
  const editable = (shape) => (shape.type === 'circle' ? shape : { type: 'polygon', corners: shape.points.slice(0, -1).map((p) => L.latLng(p.lat, p.lng)) });

  // The other geofences of the account, faint, each named and linking to its page.
  const everything = L.featureGroup().addTo(map);
  let stored = null;
  for (const g of JSON.parse(data.geofences)) {
    if (g.id === data.edited) {
      stored = editable(g.shape);
      continue;
    }
    const link = document.createElement('a');
    link.href = data.pages + encodeURIComponent(g.id);
    link.textContent = g.name;
    layerOf(editable(g.shape), OTHER).bindTooltip(g.name).bindPopup(link).addTo(everything);
  }

  // ---- The form, read and written ----

  const round = (n, digits) => Number(n.toFixed(digits));
  const inRange = (n, limit) => Number.isFinite(n) && Math.abs(n) <= limit;
  const LINE = /^([-+]?(?:\d+\.?\d*|\.\d+))\s*[,;\s]\s*([-+]?(?:\d+\.?\d*|\.\d+))$/;

  /** The corners typed in the form (lines or GeoJSON), or null while they are not a polygon yet. */
  function typedCorners(text) {
    let points = [];
    const t = text.trim();
    if (t.startsWith('{')) {
      try {
        let g = JSON.parse(t);
        if (g.type === 'FeatureCollection' && g.features.length === 1) g = g.features[0];
        if (g.type === 'Feature') g = g.geometry;
        points = g.type === 'Polygon' ? g.coordinates[0].map(([lng, lat]) => L.latLng(lat, lng)) : [];
      } catch {
        return null;
      }
    } else {
      for (const line of t.split(/\r?\n/)) {
        if (line.trim() === '') continue;
        const m = LINE.exec(line.trim());
        if (!m) return null;
        points.push(L.latLng(Number(m[1]), Number(m[2])));
      }
    }
    if (points.length > 1 && points[0].equals(points.at(-1), 0)) points.pop();
    const usable = points.length >= 3 && points.length <= maxCorners && points.every((p) => inRange(p.lat, 90) && inRange(p.lng, 180));
    return usable ? points : null;
  }

  /** The shape the form holds, or null while it holds none (blank, unfinished or out of range). */
  function formShape() {
    const type = form.querySelector('input[name="type"]:checked')?.value;
    if (type === 'polygon') {
      const corners = typedCorners(field('points').value);
      return corners && { type, corners };
    }
    if (type !== 'circle') return null;
    const [lat, lng, radius] = ['lat', 'lng', 'radius'].map((name) => (field(name).value.trim() === '' ? NaN : Number(field(name).value)));
    const ok = inRange(lat, 90) && inRange(lng, 180) && radius > 0 && radius <= maxRadius;
    return ok ? { type, center: L.latLng(lat, lng), radius } : null;
  }

  function writeForm(shape) {
    if (shape.type === 'circle') {
      field('lat').value = String(round(shape.center.lat, 6));
      field('lng').value = String(round(shape.center.lng, 6));
      field('radius').value = String(Math.round(shape.radius));
    } else {
      field('points').value = shape.corners.map((p) => `${round(p.lat, 6)},${round(p.lng, 6)}`).join('\n');
    }
    const radio = form.querySelector(`input[name="type"][value="${shape.type}"]`);
    if (!radio.checked) {
      radio.checked = true;
      // The form shows the chosen shape's fields (dashboard.js listens for this).
      radio.dispatchEvent(new Event('change', { bubbles: true }));
    }
  }

  // ---- The shape being edited, with its handles ----

  let shape = null;
  let layer = null;
  const handles = L.layerGroup().addTo(map);
  const handleIcon = (kind) => L.divIcon({ className: `geofence-handle geofence-handle-${kind}`, iconSize: [14, 14] });
  const handle = (latlng, kind, title) => L.marker(latlng, { icon: handleIcon(kind), draggable: true, keyboard: false, title, autoPan: true }).addTo(handles);

  /** Whether two sides of the ring cross (sides that share a corner do not count). */
  function crosses(corners) {
    const turn = (a, b, c) => Math.sign((b.lng - a.lng) * (c.lat - a.lat) - (b.lat - a.lat) * (c.lng - a.lng));
    const n = corners.length;
    for (let i = 0; i < n; i++) {
      for (let j = i + 2; j < n; j++) {
        if (i === 0 && j === n - 1) continue;
        const [a, b, c, d] = [corners[i], corners[(i + 1) % n], corners[j], corners[(j + 1) % n]];
        if (turn(a, b, c) * turn(a, b, d) < 0 && turn(c, d, a) * turn(c, d, b) < 0) return true;
      }
    }
    return false;
  }

  function describe() {
    if (shape.type === 'circle') return `Circle of ${Math.round(shape.radius)} m.`;
    if (crosses(shape.corners)) return `The polygon’s sides cross: move a corner so that they do not, or it cannot be saved.`;
    return `Polygon of ${shape.corners.length} corners.`;
  }

  /** Draws `next` as the edited shape with its handles; `fit` moves the map to it. */
  function show(next, fit) {
    shape = next;
    layer?.remove();
    handles.clearLayers();
    if (!shape) return;
    layer = layerOf(shape, EDITED).addTo(map);
    if (shape.type === 'polygon') {
      layer.setStyle(crosses(shape.corners) ? CROSSED : EDITED);
      shape.corners.forEach((corner, i) => {
        handle(corner, 'corner', `Corner ${i + 1}: drag to move it`)
          .on('drag', (e) => {
            shape.corners[i] = e.target.getLatLng();
            layer.setLatLngs(shape.corners);
          })
          .on('dragend', changed);
      });
    } else {
      const edge = () => L.latLng(shape.center.lat, shape.center.lng).toBounds(shape.radius * 2).getEast();
      const rim = handle([shape.center.lat, edge()], 'edge', 'Edge: drag to change the radius')
        .on('drag', (e) => {
          shape.radius = Math.min(maxRadius, Math.max(1, map.distance(shape.center, e.target.getLatLng())));
          layer.setRadius(shape.radius);
        })
        .on('dragend', () => {
          rim.setLatLng([shape.center.lat, edge()]);
          changed();
        });
      handle(shape.center, 'centre', 'Centre: drag to move the circle')
        .on('drag', (e) => {
          shape.center = e.target.getLatLng();
          layer.setLatLng(shape.center);
          rim.setLatLng([shape.center.lat, edge()]);
        })
        .on('dragend', changed);
    }
    if (fit) map.fitBounds(boundsOf(shape).pad(0.1), { maxZoom: 17 });
  }

  /** A drag or a drawing ended: the form takes the shape, and the map says what it is. */
  function changed() {
    writeForm(shape);
    show(shape, false);
    say(describe());
  }

  // Typing a shape's value redraws it at once; leaving the field moves the map to it and says what
  // it is. (The form's own change events, from writeForm, are not the user's.)
  const SHAPE_FIELDS = ['type', 'lat', 'lng', 'radius', 'points'];
  form.addEventListener('input', (e) => SHAPE_FIELDS.includes(e.target.name) && show(formShape(), false));
  form.addEventListener('change', (e) => {
    if (!e.isTrusted || !SHAPE_FIELDS.includes(e.target.name)) return;
    show(formShape(), true);
    say(shape ? describe() : '');
  });

  // ---- Drawing ----

  const buttons = { polygon: tools.querySelector('[data-draw="polygon"]'), circle: tools.querySelector('[data-draw="circle"]') };
  const finish = tools.querySelector('[data-finish]');
  const cancel = tools.querySelector('[data-cancel]');
  /** null, or { type, points (the polygon's corners, or the circle's centre), layers (what the draft shows: its line, or its circle) }. */
  let draft = null;

  function stopDrawing() {
    draft?.layers.remove();
    draft = null;
    element.classList.remove('geofence-drawing');
    for (const b of Object.values(buttons)) b.setAttribute('aria-pressed', 'false');
    finish.hidden = cancel.hidden = true;
  }

  function startDrawing(type) {
    stopDrawing();
    draft = { type, points: [], layers: L.layerGroup().addTo(map) };
    if (type === 'polygon') draft.line = L.polyline([], DRAFT).addTo(draft.layers);
    element.classList.add('geofence-drawing');
    buttons[type].setAttribute('aria-pressed', 'true');
    cancel.hidden = false;
    finish.hidden = type !== 'polygon';
    finish.disabled = true;
    say(type === 'polygon' ? 'Click the map at each corner; click the first corner, double-click or press “Finish polygon” to close it. Escape cancels.' : 'Click the map at the centre, then at the edge. Escape cancels.');
  }

  function finishPolygon() {
    if (draft.points.length < 3) return say('A polygon needs at least 3 corners.');
    const corners = draft.points;
    stopDrawing();
    show({ type: 'polygon', corners }, false);
    changed();
  }

  const nearFirst = (latlng) => draft.points.length >= 3 && map.latLngToContainerPoint(draft.points[0]).distanceTo(map.latLngToContainerPoint(latlng)) < 10;

  map.on('click', (e) => {
    if (!draft) return;
    if (draft.type === 'polygon') {
      if (nearFirst(e.latlng)) return finishPolygon();
      if (draft.points.length >= maxCorners) return say(`A polygon has at most ${maxCorners} corners: finish it.`);
      draft.points.push(e.latlng);
      L.circleMarker(e.latlng, { ...DRAFT, radius: 5, dashArray: null, fillOpacity: 1 }).addTo(draft.layers);
      draft.line.setLatLngs(draft.points);
      finish.disabled = draft.points.length < 3;
      return say(`${draft.points.length} corner${draft.points.length === 1 ? '' : 's'} placed.`);
    }
    if (draft.points.length === 0) {
      draft.points.push(e.latlng);
      draft.circle = L.circle(e.latlng, { ...DRAFT, radius: 1 }).addTo(draft.layers);
      return say('Centre placed: click at the edge.');
    }
    const radius = Math.min(maxRadius, map.distance(draft.points[0], e.latlng));
    if (radius < 1) return;
    const center = draft.points[0];
    stopDrawing();
    show({ type: 'circle', center, radius }, false);
    changed();
    if (radius === maxRadius) say(`Circle of ${maxRadius} m, the largest a geofence may be.`);
  });

  map.on('mousemove', (e) => {
    if (draft?.type === 'polygon' && draft.points.length > 0) draft.line.setLatLngs([...draft.points, e.latlng]);
    if (draft?.circle) draft.circle.setRadius(Math.min(maxRadius, map.distance(draft.points[0], e.latlng)));
  });
  map.on('dblclick', () => draft?.type === 'polygon' && finishPolygon());

  buttons.polygon.addEventListener('click', () => startDrawing('polygon'));
  buttons.circle.addEventListener('click', () => startDrawing('circle'));
  finish.addEventListener('click', finishPolygon);
  cancel.addEventListener('click', () => {
    stopDrawing();
    say('Drawing cancelled.');
  });
  document.addEventListener('keydown', (e) => {
    if (e.key !== 'Escape' || !draft) return;
    stopDrawing();
    say('Drawing cancelled.');
  });

  // The form's shape (the page's geofence, or what was typed before an error), else the stored one.
  const start = formShape() ?? stored;
  show(start, false);
  if (start) say(describe());
  const all = everything.getLayers().length > 0 ? everything.getBounds() : null;
  const view = start ? boundsOf(start) : all;
  if (view) map.fitBounds(view.pad(0.1), { maxZoom: start ? 17 : 12 });

  // For scripts and tests reading the map.
  window.geofenceView = {
    map,
    get layer() {
      return layer;
    },
    handles: () => handles.getLayers(),
    others: () => everything.getLayers(),
  };
});
