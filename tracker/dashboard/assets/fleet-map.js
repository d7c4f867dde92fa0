// The fleet view: every device as a marker on a Leaflet map (an arrow turned to its heading,
// coloured by status, clustered when many), the account's geofences under them, and a searchable
// list beside the map. `fleetView.update(devices)` draws devices in the public API's shape (plus
// `heading`): the live feed (the dashboard's Server-Sent Events stream) moves the markers as
// positions come, and a poll of the dashboard's JSON keeps statuses, telemetry and the list
// current (every few seconds while the stream is down, rarely while it is up). Everything shown
// comes in as text (textContent, never markup), and no style attribute is written (the page's
// Content-Security-Policy forbids them): positions and rotation go through the CSSOM.
'use strict';

document.addEventListener('DOMContentLoaded', () => {
  const element = document.getElementById('fleet-map');
  if (!element || typeof L === 'undefined') return;
  const data = element.dataset;
  const briefRows = JSON.parse(data.telemetry);
  const list = document.getElementById('fleet-list');
  const search = document.getElementById('fleet-search');
  const count = document.getElementById('fleet-count');
  const notice = document.getElementById('fleet-notice');

  /** Above this speed (km/h) an online device counts as moving; GPS drift of a parked vehicle stays below. */
  const MOVING_KMH = 2;
  const statusOf = (d) => (d.status !== 'online' ? 'offline' : (d.speed ?? 0) > MOVING_KMH ? 'moving' : 'stopped');
  const STATUS_TEXT = { moving: 'Moving', stopped: 'Stopped', offline: 'Offline' };

  const map = L.map(element, { worldCopyJump: true }).setView([20, 0], 2);
  // Without tiles (no internet, a tile server down) the map stays a plain background under the markers and shapes.
  const NO_TILES = 'The map background could not be loaded; devices and geofences are still shown.';
  let tilesFailed = false;
  L.tileLayer(data.tiles, { attribution: data.attribution, maxZoom: 19 })
    .on('tileerror', () => {
      if (tilesFailed) return;
      tilesFailed = true;
      say(NO_TILES);
    })
    .addTo(map);

  function say(text) {
    notice.textContent = text;
    notice.hidden = text === '';
  }

  const el = (tag, className, text) => {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  };

  // Geofences: outlines under the markers, each named in a tooltip and linking to its page.
  for (const g of JSON.parse(data.geofences)) {
    const options = { color: '#6a3fb5', weight: 2, fillOpacity: 0.12 };
    const layer =
      g.shape.type === 'circle'
        ? L.circle([g.shape.center.lat, g.shape.center.lng], { ...options, radius: g.shape.radius })
        : L.polygon(g.shape.points.map((p) => [p.lat, p.lng]), options);
    const link = el('a', '', g.name);
    link.href = data.geofencePages + encodeURIComponent(g.id);
    layer.bindTooltip(g.name).bindPopup(link).addTo(map);
  }

  const cluster = L.markerClusterGroup({ showCoverageOnHover: false, maxClusterRadius: 50, chunkedLoading: true });
  map.addLayer(cluster);

  /** id → { device, marker (null without a position), look (what the icon shows), item (list entry) } */
  const shown = new Map();
  let fitted = false;

  function icon(device) {
    const status = statusOf(device);
    const root = el('div', `fleet-marker fleet-marker-${status}`);
    const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
    svg.setAttribute('viewBox', '-12 -12 24 24');
    svg.setAttribute('aria-hidden', 'true');
    const shape = document.createElementNS('http://www.w3.org/2000/svg', device.heading === null ? 'circle' : 'path');
    if (device.heading === null) shape.setAttribute('r', '7');
    else shape.setAttribute('d', 'M0,-11 L8,8 L0,4 L-8,8 Z');
    svg.appendChild(shape);
    if (device.heading !== null) svg.style.transform = `rotate(${device.heading}deg)`;
    root.appendChild(svg);
    return L.divIcon({ html: root, className: 'fleet-marker-box', iconSize: [28, 28], iconAnchor: [14, 14], popupAnchor: [0, -12] });
  }

  const utc = (iso) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
  function ago(iso) {
    const s = Math.max(0, (Date.now() - Date.parse(iso)) / 1000);
    if (s < 60) return 'just now';
    if (s < 3600) return `${Math.floor(s / 60)} min ago`;
    if (s < 48 * 3600) return `${Math.floor(s / 3600)} h ago`;
    return `${Math.floor(s / 86400)} days ago`;
  }
  function format(row, value) {
    if (row.yes !== undefined) return value ? row.yes : row.no;
    return `${Number((value / (row.scale ?? 1)).toFixed(row.digits)).toLocaleString('en-GB')} ${row.unit}`;
  }
  const speedText = (d) => (d.lastUpdate ? `${Math.round(d.speed ?? 0)} km/h` : '–');

  function popup(device) {
    const box = el('div', 'fleet-popup');
    box.appendChild(el('strong', '', device.name));
    const facts = el('dl');
    const fact = (label, value) => {
      const row = el('div');
      row.append(el('dt', '', label), el('dd', '', value));
      facts.appendChild(row);
    };
    fact('Status', STATUS_TEXT[statusOf(device)]);
    fact('Speed', speedText(device));
    fact('Last update', device.lastUpdate ? `${utc(device.lastUpdate)} (${ago(device.lastUpdate)})` : 'never');
    for (const row of briefRows) {
      const reported = device.telemetry[row.key];
      if (reported) fact(row.label, format(row, reported.value));
    }
    box.appendChild(facts);
    const links = el('p', 'fleet-popup-links');
    const page = el('a', '', 'Device page');
    page.href = data.devicePages + encodeURIComponent(device.id);
    const track = el('a', '', 'Track');
    track.href = `${data.devicePages}${encodeURIComponent(device.id)}/track`;
    links.append(page, ' · ', track);
    box.appendChild(links);
    return box;
  }

  function listItem(entry) {
    const item = el('li');
    const button = el('button', 'fleet-item');
    button.type = 'button';
    button.addEventListener('click', () => {
      if (!entry.marker) return;
      cluster.zoomToShowLayer(entry.marker, () => entry.marker.openPopup());
    });
    item.appendChild(button);
    return item;
  }

  function fillItem(entry) {
    const d = entry.device;
    const status = statusOf(d);
    const button = entry.item.firstChild;
    button.replaceChildren(el('span', `dot dot-${status}`), el('span', 'fleet-item-name', d.name), el('span', 'fleet-item-facts muted', d.position ? `${STATUS_TEXT[status]} · ${speedText(d)}` : `${STATUS_TEXT[status]} · no position yet`));
    button.firstChild.setAttribute('aria-hidden', 'true');
    button.disabled = !d.position;
    button.setAttribute('aria-label', `${d.name}: ${STATUS_TEXT[status]}, ${d.position ? `${speedText(d)}, show on the map` : 'no position yet'}`);
  }

  /** Draws these devices; with `complete`, devices not among them are removed. */
  function update(devices, { complete = false } = {}) {
    const seen = new Set();
    for (let device of devices) {
      seen.add(device.id);
      let entry = shown.get(device.id);
      if (!entry) {
        entry = { device, marker: null, look: '', item: null };
        entry.item = listItem(entry);
        shown.set(device.id, entry);
      }
      // A poll answered after a newer live position must not move the marker back.
      const newer = entry.device.lastUpdate && device.lastUpdate && device.lastUpdate < entry.device.lastUpdate;
      entry.device = newer ? { ...device, position: entry.device.position, speed: entry.device.speed, heading: entry.device.heading, lastUpdate: entry.device.lastUpdate } : device;
      device = entry.device;
      const look = `${statusOf(device)}|${device.heading === null ? '-' : Math.round(device.heading)}`;
      if (device.position) {
        const at = [device.position.lat, device.position.lng];
        if (!entry.marker) {
          entry.marker = L.marker(at, { icon: icon(device), title: device.name, keyboard: true });
          entry.marker.bindPopup(() => popup(entry.device));
          entry.marker.deviceId = device.id;
          cluster.addLayer(entry.marker);
        } else {
          entry.marker.setLatLng(at);
          if (look !== entry.look) entry.marker.setIcon(icon(device));
          if (entry.marker.isPopupOpen()) entry.marker.setPopupContent(popup(device));
        }
      } else if (entry.marker) {
        cluster.removeLayer(entry.marker);
        entry.marker = null;
      }
      entry.look = look;
      fillItem(entry);
    }
    if (complete) {
      for (const [id, entry] of shown) {
        if (seen.has(id)) continue;
        if (entry.marker) cluster.removeLayer(entry.marker);
        entry.item.remove();
        shown.delete(id);
      }
    }
    const ordered = [...shown.values()].sort((a, b) => a.device.name.localeCompare(b.device.name) || (a.device.id < b.device.id ? -1 : 1));
    // Rebuilt only when the order changed: moving the entry that has the keyboard focus would drop it.
    if (ordered.some((e, i) => list.children[i] !== e.item) || list.children.length !== ordered.length) list.replaceChildren(...ordered.map((e) => e.item));
    filter();
    if (!fitted) {
      const located = ordered.filter((e) => e.marker).map((e) => e.marker.getLatLng());
      if (located.length > 0) {
        map.fitBounds(L.latLngBounds(located), { padding: [32, 32], maxZoom: 15 });
        fitted = true;
      }
    }
  }

  /** Shows the devices whose name, plate or identifier holds the search text, in the list and on the map. */
  function filter() {
    const words = search.value.trim().toLowerCase();
    let matching = 0;
    const add = [];
    const remove = [];
    for (const entry of shown.values()) {
      const d = entry.device;
      const match = words === '' || [d.name, d.plate, d.imei].some((v) => v.toLowerCase().includes(words));
      entry.item.hidden = !match;
      if (match) matching += 1;
      if (entry.marker && match !== cluster.hasLayer(entry.marker)) (match ? add : remove).push(entry.marker);
    }
    cluster.addLayers(add);
    cluster.removeLayers(remove);
    count.textContent = words === '' ? `${shown.size} device${shown.size === 1 ? '' : 's'}` : `${matching} of ${shown.size} devices match`;
  }
  search.addEventListener('input', filter);

  // The live feed: each valid position of a device on the map moves its marker at once. The browser
  // reconnects by itself (resuming after the last event it saw); a stream cut off because the
  // session ended is closed, and the poll then says so.
  let streaming = false;
  const live = typeof EventSource === 'function' ? new EventSource(data.stream) : null;
  if (live) {
    live.addEventListener('open', () => {
      streaming = true;
    });
    live.addEventListener('position', (event) => {
      const p = JSON.parse(event.data);
      const entry = shown.get(p.deviceId);
      if (!entry || !p.valid || p.filtered || p.lat === null || p.lng === null) return;
      update([{ ...entry.device, status: 'online', position: { lat: p.lat, lng: p.lng }, speed: p.speed, heading: p.heading, lastUpdate: p.timestamp }]);
      // The telemetry the popups show follows with the next poll, brought forward to a few seconds.
      if (timer !== null && due - Date.now() > Number(data.pollMs)) schedule(Number(data.pollMs));
    });
    live.addEventListener('cutoff', (event) => {
      if (JSON.parse(event.data).reason !== 'signed_out') return;
      live.close();
      streaming = false;
      if (!busy) schedule(0);
    });
    // Down (the browser is reconnecting, or gave up): the poll takes over at its short interval.
    live.addEventListener('error', () => {
      streaming = false;
      if (timer !== null && due - Date.now() > Number(data.pollMs)) schedule(Number(data.pollMs));
    });
    // Leaving the page ends the stream at once rather than when the connection is collected.
    window.addEventListener('pagehide', () => live.close());
  }

  // The poll: one request at a time, paused while the page is hidden, stopped when the session ends.
  let timer = null;
  let due = 0;
  let busy = false;
  function schedule(ms) {
    if (timer !== null) clearTimeout(timer);
    due = Date.now() + ms;
    timer = setTimeout(poll, ms);
  }
  async function poll() {
    timer = null;
    busy = true;
    try {
      const res = await fetch(data.devices, { headers: { accept: 'application/json' }, credentials: 'same-origin' });
      if (res.redirected || !(res.headers.get('content-type') ?? '').startsWith('application/json')) {
        say('Your session has ended: reload the page to sign in again.');
        live?.close();
        busy = false;
        return;
      }
      if (!res.ok) throw new Error(String(res.status));
      update((await res.json()).devices, { complete: true });
      say(tilesFailed ? NO_TILES : '');
    } catch {
      say('The map could not be updated; trying again in a few seconds.');
    }
    busy = false;
    if (!document.hidden) schedule(Number(streaming ? data.livePollMs : data.pollMs));
  }
  document.addEventListener('visibilitychange', () => {
    if (!document.hidden && timer === null && !busy) poll();
  });
  poll();

  // For scripts and tests reading the map: the Leaflet map and each device's marker.
  window.fleetView = { map, update, live: () => streaming, markers: () => new Map([...shown].filter(([, e]) => e.marker).map(([id, e]) => [id, e.marker])) };
});
