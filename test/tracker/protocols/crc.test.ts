import { describe, expect, it } from '@jest/globals';
import { crc16Ibm, crc16Kermit, crc16X25 } from '../../../tracker/protocols/crc.js';

describe('CRC-16', () => {
  const check = Buffer.from('123456789', 'ascii');

  it('X25 matches the catalogue check value', () => {
    expect(crc16X25(check)).toBe(0x906e);
  });

  it('IBM/ARC matches the catalogue check value', () => {
    expect(crc16Ibm(check)).toBe(0xbb3d);
  });

  it('KERMIT matches the catalogue check value', () => {
    expect(crc16Kermit(check)).toBe(0x2189);
  });

  it('honours start and end offsets', () => {
    const padded = Buffer.concat([Buffer.from([0xaa, 0xbb]), check, Buffer.from([0xcc])]);
    expect(crc16X25(padded, 2, 11)).toBe(0x906e);
    expect(crc16Ibm(padded, 2, 11)).toBe(0xbb3d);
    expect(crc16Kermit(padded, 2, 11)).toBe(0x2189);
  });
});
