// The protocols the simulator speaks and the identifier each unit is known by.

/** Every protocol the simulator speaks: all the tracker's, in the registry's order, then OsmAnd. */
export const SIM_PROTOCOLS = ['gt06', 'teltonika', 'meitrack', 'h02', 'suntech', 'ruptela', 'wialon', 'gl200', 'jt808', 'gps103', 'tk103', 'osmand'] as const;
export type SimProtocol = (typeof SIM_PROTOCOLS)[number];

/**
 * The identifier a unit of `protocol` with this IMEI is known by, the one to register: the IMEI,
 * except TK103 units, known by a 12-character id: the IMEI's last 12 digits.
 */
export function simIdentifier(protocol: SimProtocol, imei: string): string {
  return protocol === 'tk103' ? imei.slice(-12) : imei;
}
