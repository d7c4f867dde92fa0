// The geofence form: corners typed as lines or pasted as GeoJSON become the API's shape (closed
// for the owner), the API's own rules refuse what it refuses with the form's field named, and the
// drawing keeps a circle's radius true to the scale bar.
import { describe, expect, test } from '@jest/globals';
import { parseGeofenceForm, parsePoints } from '../../../tracker/dashboard/geofence-form.js';
import { shapeSvg } from '../../../tracker/dashboard/geofence-svg.js';

const base = { name: 'Depot', description: '', type: 'polygon', lat: '', lng: '', radius: '' };

describe('parsePoints', () => {
  test.each([
    ['lines, closed for the owner', '1,2\n1,3\n2,3', [[1, 2], [1, 3], [2, 3], [1, 2]]],
    ['spaces, semicolons, CRLF, blank lines and an explicit closing point', ' 1 , 2 \r\n\r\n1;3\n2 3\n1,2\n', [[1, 2], [1, 3], [2, 3], [1, 2]]],
    ['a GeoJSON Polygon: [longitude, latitude]', '{"type":"Polygon","coordinates":[[[2,1],[3,1],[3,2],[2,1]]]}', [[1, 2], [1, 3], [2, 3], [1, 2]]],
    ['a one-feature FeatureCollection', '{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Polygon","coordinates":[[[2,1],[3,1],[3,2]]]}}]}', [[1, 2], [1, 3], [2, 3], [1, 2]]],
  ])('%s', (_name, text, expected) => {
    expect(parsePoints(text)).toEqual({ ok: true, value: expected.map(([lat, lng]) => ({ lat, lng })) });
  });

  test.each([
    ['nothing', '', 'the polygon’s points are required'],
    ['a line that is not a pair', '1,2\n1,2,3', 'line 2 (“1,2,3”) is not “latitude,longitude”'],
    ['a GeoJSON point', '{"type":"Point","coordinates":[1,2]}', 'the GeoJSON must be a Polygon (or a Feature holding one)'],
    ['a GeoJSON position of text', '{"type":"Polygon","coordinates":[[[2,1],["3",1]]]}', 'GeoJSON position 2 is not [longitude, latitude]'],
    ['broken JSON', '{not json', 'the points are not valid GeoJSON (nor “lat,lng” lines)'],
    ['an empty FeatureCollection', '{"type":"FeatureCollection","features":[]}', 'the GeoJSON FeatureCollection must hold exactly one feature'],
    ['1001 points', Array.from({ length: 1001 }, (_, i) => `${i / 1000},0`).join('\n'), 'a polygon has at most 1000 points'],
  ])('refuses %s', (_name, text, message) => {
    expect(parsePoints(text)).toEqual({ ok: false, message });
  });
});

describe('parseGeofenceForm', () => {
  test('a circle becomes the API’s circle', () => {
    expect(parseGeofenceForm({ ...base, type: 'circle', lat: ' 52.5 ', lng: '-13.25', radius: '150.5', description: ' gate 2 ' })).toEqual({
      ok: true,
      input: { name: 'Depot', description: 'gate 2', shape: { type: 'circle', center: { lat: 52.5, lng: -13.25 }, radius: 150.5 } },
    });
  });

  test('every problem is tied to its field, in the API’s words, at once', () => {
    expect(parseGeofenceForm({ ...base, name: '', type: 'circle', lat: '91', lng: 'east', radius: '100001' })).toEqual({
      ok: false,
      errors: {
        lat: 'latitude of the centre must be at most 90',
        lng: 'longitude of the centre must be a number, such as 52.52',
        radius: 'radius must be at most 100000 metres',
        name: 'name must not be empty',
      },
    });
    expect(parseGeofenceForm({ ...base, points: '0,0\n95,1\n1,1' })).toEqual({ ok: false, errors: { points: 'point 2: latitude must be at most 90' } });
    expect(parseGeofenceForm({ ...base, points: '0,0\n1,1\n2,2' })).toEqual({ ok: false, errors: { points: 'the polygon has no area (its corners lie on one line)' } });
    expect(parseGeofenceForm({ ...base, points: '0,0\n0,1' })).toEqual({ ok: false, errors: { points: 'a polygon needs at least 3 corners and the closing point (4 points)' } });
    expect(parseGeofenceForm({ ...base, type: 'square', points: '0,0\n0,1\n1,1' })).toEqual({ ok: false, errors: { type: 'choose a circle or a polygon' } });
  });
});

describe('shapeSvg', () => {
  test('a circle is drawn around its centre with a radius true to the scale bar', () => {
    const svg = shapeSvg({ type: 'circle', center: { lat: 60, lng: 10 }, radius: 1000 }, 'Depot').text;
    const r = Number(/class="shape-area" cx="400.0" cy="250.0" r="([\d.]+)"/.exec(svg)![1]);
    const bar = /<line x1="16" y1="486" x2="([\d.]+)"/.exec(svg)!;
    const label = /<text [^>]*text-anchor="middle">(\d+) (m|km)<\/text>/.exec(svg)!;
    const barMetres = Number(label[1]) * (label[2] === 'km' ? 1000 : 1);
    const metresPerUnit = barMetres / (Number(bar[1]) - 16);
    expect(Math.abs(r * metresPerUnit - 1000)).toBeLessThan(5);
    expect(svg).toContain('<title id="shape-title">Depot</title>');
  });

  test('a polygon is drawn as its ring, fitted into the picture, north up', () => {
    const svg = shapeSvg({ type: 'polygon', points: [{ lat: 0, lng: 0 }, { lat: 0.01, lng: 0 }, { lat: 0.01, lng: 0.01 }, { lat: 0, lng: 0 }] }, 'Yard').text;
    const points = /<polygon class="shape-area" points="([^"]+)"/.exec(svg)![1]!.split(' ').map((p) => p.split(',').map(Number) as [number, number]);
    expect(points).toHaveLength(4);
    for (const [x, y] of points) {
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThanOrEqual(800);
      expect(y).toBeGreaterThanOrEqual(0);
      expect(y).toBeLessThanOrEqual(500);
    }
    expect(points[1]![1]).toBeLessThan(points[0]![1]);
  });
});
