// Counters of the device side (connections, frames, garbage, refused identities, bad checksums per
// device): what the issue asks to be counted, for the metrics endpoint to expose.
export class IngestStats {
  connections = 0;
  framesDecoded = 0;
  positionsReceived = 0;
  decodeErrors = 0;
  garbageBytes = 0;
  unknownIdentities = 0;
  readonly badChecksums = new Map<string, number>();
  private readonly unknownLoggedAt = new Map<string, number>();

  countBadChecksum(deviceId: string): void {
    this.badChecksums.set(deviceId, (this.badChecksums.get(deviceId) ?? 0) + 1);
  }

  /** True at most once a minute per identity, so a misconfigured device cannot flood the log. */
  shouldLogUnknown(identity: string, now = Date.now()): boolean {
    const last = this.unknownLoggedAt.get(identity);
    if (last !== undefined && now - last < 60_000) return false;
    if (this.unknownLoggedAt.size > 10_000) this.unknownLoggedAt.clear();
    this.unknownLoggedAt.set(identity, now);
    return true;
  }
}
