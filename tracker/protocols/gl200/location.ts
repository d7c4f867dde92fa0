// The location block every @Track report shares, in km/h, degrees and metres:
//   <GPS accuracy>,<speed>,<azimuth>,<altitude>,<longitude>,<latitude>,<GPS UTC time>,
//   <MCC>,<MNC>,<LAC hex>,<cell id hex>,…
// How many blocks a report holds and what surrounds them differs by message and model, so the
// blocks are found by their shape: two decimal coordinates followed by a 14-digit UTC time.
import { utcDate } from '../reader.js';
import { digitsValue } from '../text-numbers.js';
import type { NetworkInfo } from '../../positions/telemetry.js';
import type { DecodedPosition } from '../types.js';

const COORDINATE = /^-?\d{1,3}\.\d+$/;
const DECIMAL = /^-?\d{1,7}(\.\d+)?$/;
const TIME = /^\d{14}$/;

/** yyyyMMddHHmmss in UTC, or null when it is not a date. */
export function parseTime(field: string | undefined): Date | null {
  if (!field || !TIME.test(field)) return null;
  return utcDate(digitsValue(field, 0, 4), digitsValue(field, 4, 6), digitsValue(field, 6, 8), digitsValue(field, 8, 10), digitsValue(field, 10, 12), digitsValue(field, 12, 14));
}

function number(field: string | undefined): number {
  return field && DECIMAL.test(field) ? Number(field) : 0;
}

/**
 * Adds a position for every location block with a fix in the fields, in order; returns the index
 * of the field after the last one's time, or -1 when there is none.
 */
export function findLocations(f: string[], from: number, positions: DecodedPosition[]): number {
  let end = -1;
  for (let t = from + 6; t < f.length; t += 1) {
    // A time has 14 characters: that rules out most fields at a glance.
    if (f[t]!.length !== 14) continue;
    const lng = f[t - 2]!;
    const lat = f[t - 1]!;
    if (!COORDINATE.test(lng) || !COORDINATE.test(lat)) continue;
    const time = parseTime(f[t]);
    if (!time) continue;
    const latitude = Number(lat);
    const longitude = Number(lng);
    if (Math.abs(latitude) > 90 || Math.abs(longitude) > 180) continue;
    const accuracy = f[t - 6]!;
    const heading = number(f[t - 4]);
    const position: DecodedPosition = {
      deviceTime: time,
      // GPS accuracy 0 means the unit repeats its last known fix; it must not move the vehicle.
      valid: accuracy !== '0',
      lat: latitude,
      lng: longitude,
      speed: number(f[t - 5]),
      heading: heading >= 0 && heading <= 360 ? heading : 0,
      altitude: number(f[t - 3]),
      attributes: {},
    };
    const accuracyValue = number(accuracy);
    if (accuracyValue > 0) position.attributes.hdop = accuracyValue;
    const network = cell(f, t + 1);
    if (network) position.attributes.network = network;
    positions.push(position);
    end = t + 1;
  }
  return end;
}

/** MCC and MNC in decimal, LAC and cell id in hex, as the block after the time holds them. */
function cell(f: string[], at: number): NetworkInfo | undefined {
  const mcc = f[at];
  const mnc = f[at + 1];
  const lac = f[at + 2];
  const cid = f[at + 3];
  if (!mcc || !mnc || !lac || !cid || !/^\d{1,4}$/.test(mcc) || !/^\d{1,4}$/.test(mnc)) return undefined;
  if (!/^[0-9A-Fa-f]{1,8}$/.test(lac) || !/^[0-9A-Fa-f]{1,8}$/.test(cid)) return undefined;
  return {
    cellTowers: [{
      mobileCountryCode: Number(mcc),
      mobileNetworkCode: Number(mnc),
      locationAreaCode: parseInt(lac, 16),
      cellId: parseInt(cid, 16),
    }],
  };
}
