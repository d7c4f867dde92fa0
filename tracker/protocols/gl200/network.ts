// Reports without a fix that still locate the unit roughly: the cells it hears (GTGSM, GTLBS, a
// GTFRI sent before the first fix) and the Wi-Fi access points it sees (GTWIF, Wi-Fi fields of
// GL/GT models). Found by shape: MCC, MNC (decimal), LAC, cell id (hex) in a row; a 12-hex-digit MAC
// followed by its signal strength.
import type { CellTower, NetworkInfo, WifiAccessPoint } from '../../positions/telemetry.js';

const MCC = /^\d{3,4}$/;
const MNC = /^\d{2,4}$/;
const HEX = /^[0-9A-Fa-f]{1,8}$/;
const MAC = /^[0-9A-Fa-f]{12}$/;
const RSSI = /^-\d{1,3}$/;
/** The vocabulary's cap on each list. */
const MAX = 32;

export function findNetwork(f: string[], from: number): NetworkInfo | undefined {
  const cellTowers: CellTower[] = [];
  const wifiAccessPoints: WifiAccessPoint[] = [];
  for (let i = from; i < f.length; i += 1) {
    const [a, b, c, d] = [f[i]!, f[i + 1], f[i + 2], f[i + 3]];
    if (MAC.test(a) && b !== undefined && RSSI.test(b)) {
      const macAddress = a.toLowerCase().replace(/(..)(?!$)/g, '$1:');
      if (wifiAccessPoints.length < MAX) wifiAccessPoints.push({ macAddress, signalStrength: Number(b) });
      i += 1;
    } else if (MCC.test(a) && Number(a) >= 200 && b && MNC.test(b) && c && HEX.test(c) && d && HEX.test(d) && c.length <= 4) {
      const tower: CellTower = { mobileCountryCode: Number(a), mobileNetworkCode: Number(b), locationAreaCode: parseInt(c, 16), cellId: parseInt(d, 16) };
      if (cellTowers.length < MAX) cellTowers.push(tower);
      i += 3;
    }
  }
  if (!cellTowers.length && !wifiAccessPoints.length) return undefined;
  return { ...(cellTowers.length ? { cellTowers } : {}), ...(wifiAccessPoints.length ? { wifiAccessPoints } : {}) };
}
