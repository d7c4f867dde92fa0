// Meitrack's checksum: the byte sum from "$$" / "@@" through '*', modulo 256, as two upper-case hex digits.

/** The byte sum of bytes[0, end) modulo 256: a frame's checksum is checked in place, without a copy of its head. */
export function meitrackSum(bytes: Uint8Array, end = bytes.length): number {
  let sum = 0;
  // Indexed: iterating a Buffer with for…of cost four times as much, on every report.
  for (let i = 0; i < end; i++) sum += bytes[i]!;
  return sum & 0xff;
}

export function meitrackChecksum(bytes: Buffer): string {
  return meitrackSum(bytes).toString(16).toUpperCase().padStart(2, '0');
}

/** A server message: "@@<flag><length>,<imei>,<content>*<checksum>\r\n", the length counted from the first comma. */
export function meitrackMessage(flag: string, imei: string, content: string): Buffer {
  const length = 1 + imei.length + 1 + content.length + 5;
  const head = `@@${flag}${String(length).padStart(2, '0')},${imei},${content}*`;
  return Buffer.from(`${head}${meitrackChecksum(Buffer.from(head, 'latin1'))}\r\n`, 'latin1');
}
