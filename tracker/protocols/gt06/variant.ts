// GT06 is spoken by many manufacturers, and several reuse a message number with a layout of their
// own. A device model is not configured here, so the layout is recognised from the frame itself:
// the message number with its declared length (each such firmware sends a fixed length), as
// Traccar does, plus an IMEI where a date would be for the models that prefix one.
export type Variant =
  | 'standard'
  | 'vxt01' // VXT01: 0x12/0x16 with status after the cell, no alarm byte
  | 'wanwayS20' // Wanway S20: 0x24 with a cell count
  | 'sr411' // SR411 mini: 0x24 as GPS, cell, ACC and two voltages
  | 'gt06eCard' // GT06E with a card reader: 0x12 with odometer and card text
  | 'benway' // Benway: 0x12 with an input/temperature word
  | 's5' // S5: 0x12 with status, oil, temperature, odometer
  | 'space10x' // Space10X: 0x19 carries several cells
  | 'obd6' // OBD6: 0x13 with satellites, mode, voltage and temperature
  | 'wetrust' // WeTrust: 0x12 with odometer, card and driving time
  | 'jc400' // JC400 dash camera: 0x95 with a marker, full GPS block and voltage
  | 'sl4x' // SL4X: 2-byte MNC, 8-byte cell ids, altitude
  | 'seeworld' // SeeWorld: 4-byte cell id, temperature/humidity in 0x22, steps in 0xa3
  | 'rfid' // 0x17 as GPS, cell and an RFID tag
  | 'lw4g' // LW4G: 0xa2 as GPS, 4G cell, status, odometer, hours
  | 'trx16i'; // TRX16i: 0x36 with RFID and counters, RFID after the status in 0x16

const BY_LENGTH: Record<number, Record<number, Variant>> = {
  0x12: { 0x24: 'vxt01', 0x21: 'benway', 0x2b: 's5', 0x29: 'wetrust' },
  0x16: { 0x24: 'vxt01', 0x26: 'seeworld', 0x2d: 'trx16i' },
  0x24: { 0x31: 'wanwayS20', 0x2e: 'sr411' },
  0x13: { 0x13: 'obd6' },
  0x34: { 0x37: 'sl4x' },
  0x31: { 0x2a: 'sl4x' },
  0x32: { 0x27: 'sl4x', 0x29: 'sl4x' },
  0x22: { 0x2f: 'seeworld' },
  0xa3: { 0x0c: 'seeworld', 0x18: 'seeworld' },
  0x17: { 0x28: 'rfid' },
  0xa2: { 0x40: 'lw4g' },
  0x36: { 0x35: 'trx16i' },
};

/** The layout of a 78 78 frame's body (`body` starts after the message number). */
export function variantOf(proto: number, declared: number, extended: boolean, body: Buffer): Variant {
  if (extended) return 'standard';
  const fixed = BY_LENGTH[proto]?.[declared];
  if (fixed) return fixed;
  if (proto === 0x12 && declared >= 0x71) return 'gt06eCard';
  if (proto === 0x19 && declared >= 0x17) return 'space10x';
  if (proto === 0x95 && body.length >= 2 && body.readUInt16BE(0) === 0xffff) return 'jc400';
  return 'standard';
}

/**
 * True when an IMEI sits at `at`: 8 BCD bytes, the first nibble the zero padding. A GPS block
 * starting there cannot pass: its year byte is 0x10 or more for any fix since 2016, and its
 * seventh byte carries the block length (0xc) in its high nibble.
 */
export function isImeiAt(body: Buffer, at: number): boolean {
  if (body.length < at + 8 || body[at]! >> 4 !== 0) return false;
  for (let i = at; i < at + 8; i++) if (body[i]! >> 4 > 9 || (body[i]! & 0x0f) > 9) return false;
  return true;
}
