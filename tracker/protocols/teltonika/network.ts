// The serving cell as the `network` attribute. FMB devices report it in IO elements 205 (GSM cell
// id) or 636 (LTE cell id), 206 (area code) and 241 (operator: MCC followed by MNC, 24602 is
// 246/02); GH3000 records in their location block.
import type { CellTower, IoValue, NetworkInfo } from '../../positions/telemetry.js';

/** A cell, or undefined while the device is not registered (id or area 0). */
export function cellTower(locationAreaCode: number, cellId: number, operator?: number): CellTower | undefined {
  if (cellId === 0 || locationAreaCode === 0) return undefined;
  const tower: CellTower = { cellId, locationAreaCode };
  if (operator !== undefined && operator >= 10000) {
    const digits = String(operator);
    tower.mobileCountryCode = Number(digits.slice(0, 3));
    tower.mobileNetworkCode = Number(digits.slice(3));
  }
  return tower;
}

export function fmbNetwork(io: Record<string, IoValue>): NetworkInfo | undefined {
  const num = (id: number) => (typeof io[id] === 'number' ? (io[id] as number) : undefined);
  const lac = num(206);
  const gsm = num(205);
  const lte = num(636);
  const cid = gsm ?? lte;
  if (lac === undefined || cid === undefined) return undefined;
  const tower = cellTower(lac, cid, num(241));
  if (!tower) return undefined;
  return gsm === undefined ? { radioType: 'lte', cellTowers: [tower] } : { cellTowers: [tower] };
}
