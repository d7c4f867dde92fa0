// Counters of the device side (connections, frames, decode errors by protocol, garbage, refused
// identities, bad checksums per device, implausible positions by protocol and reason, refused
// connections, takeovers, limited OsmAnd reports), exposed by the metrics (tracker/metrics.ts) at each scrape.
export class IngestStats {
  connections = 0;
  framesDecoded = 0;
  positionsReceived = 0;
  garbageBytes = 0;
  unknownIdentities = 0;
  osmandLimited = 0;
  /** Connections closed by a limit: total, address (caps at accept), login_timeout, proxy_header. */
  readonly refusedConnections = new Map<string, number>();
  /** Second connections of a connected device, by the one that won: newer or older. */
  readonly takeovers = new Map<string, number>();
  /** Frames (and OsmAnd reports) that could not be decoded, by protocol. */
  readonly decodeErrors = new Map<string, number>();
  readonly badChecksums = new Map<string, number>();
  /** Positions and attribute sets refused by the plausibility check, by `protocol reason`. */
  readonly refused = new Map<string, number>();
  private readonly unknownLoggedAt = new Map<string, number>();
  private readonly refusedLoggedAt = new Map<string, number>();
  private readonly proxyRefusalLoggedAt = new Map<string, number>();

  countDecodeError(protocol: string): void {
    this.decodeErrors.set(protocol, (this.decodeErrors.get(protocol) ?? 0) + 1);
  }

  countRefusedConnection(reason: 'total' | 'address' | 'login_timeout' | 'proxy_header'): void {
    this.refusedConnections.set(reason, (this.refusedConnections.get(reason) ?? 0) + 1);
  }

  countTakeover(winner: 'newer' | 'older'): void {
    this.takeovers.set(winner, (this.takeovers.get(winner) ?? 0) + 1);
  }

  countBadChecksum(deviceId: string): void {
    this.badChecksums.set(deviceId, (this.badChecksums.get(deviceId) ?? 0) + 1);
  }

  countRefused(protocol: string, reason: string): void {
    const key = `${protocol} ${reason}`;
    this.refused.set(key, (this.refused.get(key) ?? 0) + 1);
  }

  /** True at most once a minute per identity, so a misconfigured device cannot flood the log. */
  shouldLogUnknown(identity: string, now = Date.now()): boolean {
    return onceAMinute(this.unknownLoggedAt, identity, now);
  }

  /** True at most once a minute per device, so a device sending garbage cannot flood the log. */
  shouldLogRefused(device: string, now = Date.now()): boolean {
    return onceAMinute(this.refusedLoggedAt, device, now);
  }

  /** True at most once a minute per peer, so a port scanner cannot flood the log. */
  shouldLogProxyRefusal(peer: string, now = Date.now()): boolean {
    return onceAMinute(this.proxyRefusalLoggedAt, peer, now);
  }
}

function onceAMinute(loggedAt: Map<string, number>, key: string, now: number): boolean {
  const last = loggedAt.get(key);
  if (last !== undefined && now - last < 60_000) return false;
  if (loggedAt.size > 10_000) loggedAt.clear();
  loggedAt.set(key, now);
  return true;
}
