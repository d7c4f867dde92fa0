// Checksums used by the device protocols. All are reflected CRC-16 variants over the
// polynomial 0x1021 / 0x8005; tables are built once at load so per-frame cost stays small.

function reflectedTable(poly: number): Uint16Array {
  const table = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ poly : c >>> 1;
    table[i] = c;
  }
  return table;
}

// 0x8408 is 0x1021 bit-reversed (X25); 0xA001 is 0x8005 bit-reversed (IBM/ARC).
const X25_TABLE = reflectedTable(0x8408);
const IBM_TABLE = reflectedTable(0xa001);

/** CRC-16/X25 (init 0xFFFF, reflected, final XOR 0xFFFF): GT06 / Concox frames. */
export function crc16X25(data: Uint8Array, start = 0, end = data.length): number {
  let crc = 0xffff;
  for (let i = start; i < end; i++) crc = (crc >>> 8) ^ X25_TABLE[(crc ^ data[i]!) & 0xff]!;
  return (crc ^ 0xffff) & 0xffff;
}

/** CRC-16/IBM a.k.a. ARC (init 0, reflected, no final XOR): Teltonika AVL packets. */
export function crc16Ibm(data: Uint8Array, start = 0, end = data.length): number {
  let crc = 0;
  for (let i = start; i < end; i++) crc = (crc >>> 8) ^ IBM_TABLE[(crc ^ data[i]!) & 0xff]!;
  return crc & 0xffff;
}

// CRC-16/KERMIT is X25's polynomial and table without the initial and final inversion.
/** CRC-16/KERMIT (init 0, reflected, no final XOR): Ruptela records. */
export function crc16Kermit(data: Uint8Array, start = 0, end = data.length): number {
  let crc = 0;
  for (let i = start; i < end; i++) crc = (crc >>> 8) ^ X25_TABLE[(crc ^ data[i]!) & 0xff]!;
  return crc & 0xffff;
}
