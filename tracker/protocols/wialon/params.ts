// The params field of a Wialon IPS data packet: "name:type:value" items, type 1 integer, 2 real,
// 3 text. Names are the unit's own; those Traccar gives a meaning (and ours shares) become
// vocabulary keys, cell towers become the network block, everything else stays under io.
import { addAlarm, type CellTower, fromTraccar, type Telemetry } from '../../positions/telemetry.js';

const PARAM = /^(.*):[1-3]:(.*)$/;
const MAX_IO_KEY = 64;
const MAX_CELLS = 10;

/** Traccar's reading of a value: a number where it parses as one, true/false, else the text. */
function valueOf(text: string): number | boolean | string {
  const n = Number(text);
  if (text.trim() !== '' && Number.isFinite(n)) return n;
  if (/^true$/i.test(text)) return true;
  if (/^false$/i.test(text)) return false;
  return text;
}

export function applyParams(field: string, attributes: Telemetry): void {
  const raw = new Map<string, number | boolean | string>();
  for (const item of field.split(',')) {
    const m = PARAM.exec(item);
    if (m) raw.set(m[1]!.toLowerCase(), valueOf(m[2]!));
  }
  const cellTowers = takeCells(raw);
  if (cellTowers.length) attributes.network = { cellTowers };
  const io = (attributes.io ??= {});
  for (const [key, value] of raw) {
    if (key === 'bat' && typeof value === 'number') {
      attributes.batteryLevel = value;
      continue;
    }
    if (key === 'sos' && value === 1) addAlarm(attributes, 'sos');
    const known = fromTraccar(key, value);
    if (known) Object.assign(attributes, { [known[0]]: known[1] });
    // The unit's temperature: Traccar's deviceTemp, a name our vocabulary does not have.
    else io[key === 'temp' ? 'deviceTemp' : key.slice(0, MAX_IO_KEY)] = typeof value === 'string' ? value.slice(0, 256) : value;
  }
}

/** mcc/mnc/lac/cell_id, then mcc1…cell_id1 up to the first incomplete tower. */
function takeCells(raw: Map<string, number | boolean | string>): CellTower[] {
  const towers: CellTower[] = [];
  for (let i = 0; i < MAX_CELLS; i++) {
    const suffix = i === 0 ? '' : String(i);
    const [mcc, mnc, lac, cid] = ['mcc', 'mnc', 'lac', 'cell_id'].map((k) => raw.get(k + suffix));
    const ok = [mcc, mnc, lac, cid].every((v) => typeof v === 'number' && Number.isInteger(v) && v >= 0);
    if (!ok) {
      if (i === 0) continue;
      break;
    }
    for (const k of ['mcc', 'mnc', 'lac', 'cell_id']) raw.delete(k + suffix);
    towers.push({ mobileCountryCode: mcc as number, mobileNetworkCode: mnc as number, locationAreaCode: lac as number, cellId: cid as number });
  }
  return towers;
}
