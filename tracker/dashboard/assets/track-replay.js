// The track page's replay: the track on the map (fetched simplified for the map's zoom, and for its
// view once zoomed in: never more than a few thousand vertices, drawn on one canvas), its start and
// end, its trips and stops marked, a play control (play and pause, speed, position in time) moving
// a marker along the track, and the position table a page at a time (a row centres the map on its
// position). Everything shown comes in as text (textContent), and no style attribute is written
// (the page's Content-Security-Policy forbids them).
'use strict';

document.addEventListener('DOMContentLoaded', () => {
  const element = document.getElementById('figure-map');
  if (!element || typeof L === 'undefined') return;
  const data = element.dataset;
  const $ = (id) => document.getElementById(id);
  const notice = $('figure-notice');
  element.hidden = false;
  for (const drawing of document.querySelectorAll('svg.track')) drawing.setAttribute('hidden', '');

  function say(text) {
    notice.textContent = text;
    notice.hidden = text === '';
  }

  const renderer = L.canvas({ padding: 0.5 });
  const map = L.map(element, { renderer });
  L.tileLayer(data.tiles, { attribution: data.attribution, maxZoom: 19 })
    .once('tileerror', () => say('The map background could not be loaded; the track is still shown.'))
    .addTo(map);
  const whole = L.latLngBounds(JSON.parse(data.bounds));
  map.fitBounds(whole.pad(0.05), { maxZoom: 16 });

  const pad2 = (n) => String(n).padStart(2, '0');
  const stamp = (seconds) => new Date(seconds * 1000).toISOString().slice(0, 19).replace('T', ' ') + ' UTC';
  function duration(seconds) {
    const m = Math.round(seconds / 60);
    return m < 60 ? `${m} min` : `${Math.floor(m / 60)} h ${pad2(m % 60)} min`;
  }

  const line = L.polyline([], { color: '#0b5cad', weight: 4, opacity: 0.9, interactive: false }).addTo(map);

  // Trips (where each began) and stops, under the replay's marker; a click moves the replay there.
  const trips = JSON.parse(data.trips);
  const stops = JSON.parse(data.stops);
  const marks = L.layerGroup().addTo(map);
  trips.forEach((t, i) => {
    L.circleMarker(t.start, { radius: 6, color: '#fff', weight: 2, fillColor: '#0e7490', fillOpacity: 1 })
      .bindTooltip(`Trip ${i + 1}: ${stamp(t.from)} to ${stamp(t.to)}, ${t.km} km, up to ${t.maxKmh} km/h`)
      .on('click', () => seek(t.from))
      .addTo(marks);
  });
  stops.forEach((s) => {
    L.circleMarker(s.at, { radius: 7, color: '#fff', weight: 2, fillColor: '#b45309', fillOpacity: 1 })
      .bindTooltip(`Stop: ${stamp(s.from)} to ${stamp(s.to)} (${duration(s.to - s.from)})`)
      .on('click', () => seek(s.from))
      .addTo(marks);
  });

  // The track: the whole of it at the fitted zoom first (that is also what the replay follows),
  // then again for each zoom and view the user moves to. An answer that is no longer wanted is dropped.
  let route = null;
  let start = null;
  let end = null;
  let asked = 0;
  let drawn = 0;
  async function load() {
    const ask = ++asked;
    const params = new URLSearchParams({ zoom: String(map.getZoom()) });
    const view = map.getBounds().pad(0.5);
    if (route && !view.contains(whole)) {
      params.set('west', String(Math.max(-180, view.getWest())));
      params.set('south', String(Math.max(-90, view.getSouth())));
      params.set('east', String(Math.min(180, view.getEast())));
      params.set('north', String(Math.min(90, view.getNorth())));
    }
    try {
      const res = await fetch(`${data.detail}&${params}`, { headers: { accept: 'application/json' }, credentials: 'same-origin' });
      if (res.redirected || !(res.headers.get('content-type') ?? '').startsWith('application/json')) return say('Your session has ended: reload the page to sign in again.');
      if (!res.ok) throw new Error(String(res.status));
      const detail = await res.json();
      if (ask !== asked) return;
      line.setLatLngs(detail.parts.map((part) => part.map((p) => [p[0], p[1]])));
      drawn = detail.parts.reduce((n, part) => n + part.length, 0);
      if (!route) begin(detail.parts.flat());
      $('track-count').textContent = `${Number(data.total).toLocaleString('en-GB')} positions, ${drawn.toLocaleString('en-GB')} drawn at this zoom`;
    } catch {
      say('The track could not be loaded; move the map to try again.');
    }
  }
  let moved = null;
  map.on('moveend', () => {
    clearTimeout(moved);
    moved = setTimeout(load, 150);
  });

  // The replay: a marker at the track's place at time `at` (between two positions, on the straight
  // line between them), moved `speed` seconds of the track per second while playing.
  const play = $('replay-play');
  const speed = $('replay-speed');
  const slider = $('replay-position');
  const readout = $('replay-time');
  const STEPS = Number(slider.max);
  let marker = null;
  let at = 0;
  let playing = false;
  let lastFrame = null;
  const first = () => route[0][2];
  const last = () => route.at(-1)[2];

  function begin(points) {
    route = points;
    start = L.circleMarker(points[0].slice(0, 2), { radius: 8, color: '#fff', weight: 2, fillColor: '#17693a', fillOpacity: 1 }).bindTooltip(data.startLabel).addTo(map);
    // A square, as in the legend.
    end = L.marker(points.at(-1).slice(0, 2), { icon: L.divIcon({ className: 'track-end-marker', iconSize: [14, 14] }), title: data.endLabel, keyboard: false }).bindTooltip(data.endLabel).addTo(map);
    marker = L.marker(points[0].slice(0, 2), { icon: L.divIcon({ className: 'replay-marker', iconSize: [18, 18] }), keyboard: false, interactive: false, zIndexOffset: 1000 }).addTo(map);
    $('replay').hidden = false;
    show(first());
  }

  /** Where the track was at time t: [lat, lng, speed]. */
  function placeAt(t) {
    let lo = 0;
    let hi = route.length - 1;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (route[mid][2] <= t) lo = mid;
      else hi = mid;
    }
    const a = route[lo];
    const b = route[hi];
    const f = b[2] === a[2] ? 0 : Math.min(1, Math.max(0, (t - a[2]) / (b[2] - a[2])));
    return [a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f, f < 0.5 ? a[3] : b[3]];
  }

  function show(t) {
    at = Math.min(last(), Math.max(first(), t));
    const [lat, lng, kmh] = placeAt(at);
    marker.setLatLng([lat, lng]);
    const span = last() - first();
    slider.value = String(span === 0 ? 0 : Math.round(((at - first()) / span) * STEPS));
    const text = `${stamp(Math.floor(at))}, ${Math.round(kmh)} km/h`;
    readout.textContent = text;
    slider.setAttribute('aria-valuetext', text);
  }

  function setPlaying(on) {
    playing = on;
    lastFrame = null;
    play.textContent = on ? 'Pause' : 'Play';
    play.setAttribute('aria-label', on ? 'Pause the replay' : 'Play the replay');
    if (on) requestAnimationFrame(frame);
  }

  function frame(now) {
    if (!playing) return;
    if (lastFrame !== null) show(at + ((now - lastFrame) / 1000) * Number(speed.value));
    lastFrame = now;
    // Keeps the marker in sight while it plays.
    if (!map.getBounds().pad(-0.1).contains(marker.getLatLng())) map.panTo(marker.getLatLng(), { animate: false });
    if (at >= last()) setPlaying(false);
    else requestAnimationFrame(frame);
  }

  function seek(t) {
    if (!route) return;
    setPlaying(false);
    show(t);
  }

  play.setAttribute('aria-label', 'Play the replay');
  play.addEventListener('click', () => {
    if (!route) return;
    if (!playing && at >= last()) show(first());
    setPlaying(!playing);
  });
  slider.addEventListener('input', () => show(first() + (Number(slider.value) / STEPS) * (last() - first())));

  // The position table: a page at a time; a row (or its time, from the keyboard) centres the map on
  // that position and moves the replay there.
  const table = $('positions');
  const rows = $('positions-rows');
  const previous = $('positions-previous');
  const next = $('positions-next');
  const perPage = Number(data.perPage);
  const total = Number(data.total);
  const pages = Math.max(1, Math.ceil(total / perPage));
  let pageNo = 1;

  function centre(row, p) {
    for (const other of rows.querySelectorAll('tr.selected')) other.classList.remove('selected');
    row.classList.add('selected');
    map.setView([p[1], p[2]], Math.max(map.getZoom(), 15));
    seek(Date.parse(p[0]) / 1000);
  }

  async function showPage(n) {
    try {
      const res = await fetch(`${data.positions}&page=${n}`, { headers: { accept: 'application/json' }, credentials: 'same-origin' });
      if (res.redirected || !(res.headers.get('content-type') ?? '').startsWith('application/json')) return say('Your session has ended: reload the page to sign in again.');
      if (!res.ok) throw new Error(String(res.status));
      const { positions } = await res.json();
      pageNo = n;
      rows.replaceChildren(
        ...positions.map((p) => {
          const row = document.createElement('tr');
          const time = document.createElement('button');
          time.type = 'button';
          time.className = 'link-button';
          time.textContent = p[0].slice(0, 19).replace('T', ' ');
          time.setAttribute('aria-label', `${time.textContent} UTC: show on the map`);
          const cell = (text) => {
            const td = document.createElement('td');
            td.textContent = text;
            return td;
          };
          const first = document.createElement('td');
          first.appendChild(time);
          row.append(first, cell(`${Math.round(p[3])} km/h`), cell(`${p[1].toFixed(5)}, ${p[2].toFixed(5)}`));
          row.addEventListener('click', () => centre(row, p));
          return row;
        }),
      );
      const from = (n - 1) * perPage + 1;
      $('positions-caption').textContent = `Positions ${from} to ${from + positions.length - 1} of ${total}`;
      $('positions-page').textContent = `Page ${n} of ${pages}`;
      previous.disabled = n <= 1;
      next.disabled = n >= pages;
      table.hidden = false;
    } catch {
      say('The positions could not be loaded; try again in a moment.');
    }
  }
  previous.addEventListener('click', () => showPage(pageNo - 1));
  next.addEventListener('click', () => showPage(pageNo + 1));

  load();
  showPage(1);

  // For scripts and tests reading the map and driving the replay.
  window.trackView = {
    map,
    line,
    get start() {
      return start;
    },
    get end() {
      return end;
    },
    get marker() {
      return marker;
    },
    drawn: () => drawn,
    state: () => ({ at, playing }),
  };
});
