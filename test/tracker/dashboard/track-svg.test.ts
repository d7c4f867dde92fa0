// Drawing a track: the projection keeps north up and true proportions, fits the picture, and the
// scale bar states a round distance that matches its length.
import { describe, expect, test } from '@jest/globals';
import { distanceLabel, HEIGHT, project, roundDistance, trackSvg, WIDTH, type TrackPoint } from '../../../tracker/dashboard/track-svg.js';

const at = (lat: number, lng: number, minute = 0): TrackPoint => ({ lat, lng, time: new Date(Date.UTC(2026, 10, 21, 9, minute)) });
const dist = (a: { x: number; y: number }, b: { x: number; y: number }) => Math.hypot(a.x - b.x, a.y - b.y);

describe('project', () => {
  test('north is up, east is right, and everything fits inside the picture', () => {
    const { points } = project([at(60, 10), at(60.01, 10), at(60.01, 10.02)]);
    const [south, north, east] = points as [{ x: number; y: number }, { x: number; y: number }, { x: number; y: number }];
    expect(north.y).toBeLessThan(south.y);
    expect(east.x).toBeGreaterThan(north.x);
    for (const p of points) {
      expect(p.x).toBeGreaterThanOrEqual(0);
      expect(p.x).toBeLessThanOrEqual(WIDTH);
      expect(p.y).toBeGreaterThanOrEqual(0);
      expect(p.y).toBeLessThanOrEqual(HEIGHT);
    }
  });

  test('one kilometre north and one kilometre east are drawn the same length at 60° N', () => {
    // At 60° N a degree of longitude is half as long as a degree of latitude.
    const dLat = 1000 / 111_320;
    const dLng = 1000 / (111_320 * Math.cos(Math.PI / 3));
    const { points } = project([at(60, 10), at(60 + dLat, 10), at(60, 10 + dLng)]);
    const north = dist(points[0]!, points[1]!);
    const east = dist(points[0]!, points[2]!);
    expect(Math.abs(north - east) / east).toBeLessThan(0.01);
  });

  test('metres per picture unit agree with a known distance', () => {
    // 0.01° of latitude is about 1,113 m.
    const { points, metresPerUnit } = project([at(48.85, 2.35), at(48.86, 2.35)]);
    expect(dist(points[0]!, points[1]!) * metresPerUnit).toBeGreaterThan(1100);
    expect(dist(points[0]!, points[1]!) * metresPerUnit).toBeLessThan(1125);
  });

  test('a vehicle that did not move is drawn in the middle of a 200 m picture, not blown up', () => {
    const { points, metresPerUnit } = project([at(52.5, 13.4), at(52.5, 13.4)]);
    expect(points[0]).toEqual({ x: WIDTH / 2, y: HEIGHT / 2 });
    expect(metresPerUnit * HEIGHT).toBeGreaterThan(200);
  });
});

describe('scale', () => {
  test.each([
    [1, 1],
    [7.5, 5],
    [19, 10],
    [340, 200],
    [999, 500],
    [1000, 1000],
    [4800, 2000],
    [73_000, 50_000],
  ])('the round distance not longer than %p m is %p m', (max, expected) => {
    expect(roundDistance(max)).toBe(expected);
  });

  test('labels metres and kilometres', () => {
    expect(distanceLabel(500)).toBe('500 m');
    expect(distanceLabel(2000)).toBe('2 km');
  });
});

describe('trackSvg', () => {
  test('one polyline through every point, start and end markers with their times, a scale bar', () => {
    const svg = trackSvg([at(48.85, 2.35, 0), at(48.851, 2.352, 1), at(48.853, 2.351, 2)], 'Track of <Van>').text;
    expect(svg).toContain('<title id="track-title">Track of &lt;Van&gt;</title>');
    expect(/<polyline class="track-line" points="([^"]+)"/.exec(svg)![1]!.split(' ')).toHaveLength(3);
    expect(svg).toContain('<title>Start: 2026-11-21 09:00 UTC</title>');
    expect(svg).toContain('<title>End: 2026-11-21 09:02 UTC</title>');
    expect(svg).toMatch(/<text [^>]*>\d+ m<\/text>/);
  });

  test('a single position is a marker without a line', () => {
    const svg = trackSvg([at(48.85, 2.35)], 'One fix').text;
    expect(svg).not.toContain('<polyline');
    expect(svg).toContain('class="track-start"');
  });
});
