// Limits per source address on the device side: open TCP connections (and their total), and OsmAnd
// reports in one-minute windows. Kept in the process: each tracker replica guards its own sockets.

/** Which limit refused a connection. */
export type ConnectionRefusal = 'total' | 'address';

export class ConnectionCaps {
  private readonly open = new Map<string, number>();
  private total = 0;

  constructor(
    private readonly maxTotal: number,
    private readonly maxPerAddress: number,
  ) {}

  /** Counts a new connection in; the limit that refuses it (and counts nothing) otherwise. */
  admit(address: string): ConnectionRefusal | null {
    if (this.total >= this.maxTotal) return 'total';
    const here = this.open.get(address) ?? 0;
    if (here >= this.maxPerAddress) return 'address';
    this.open.set(address, here + 1);
    this.total++;
    return null;
  }

  /** An admitted connection closed. */
  release(address: string): void {
    const here = (this.open.get(address) ?? 1) - 1;
    if (here > 0) this.open.set(address, here);
    else this.open.delete(address);
    this.total--;
  }
}

const WINDOW_MS = 60_000;

export class ReportWindows {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly perMinute: number) {}

  /** Counts a report; 0 when it may go ahead, else the seconds until its address's window ends. */
  take(address: string, now = Date.now()): number {
    let w = this.windows.get(address);
    if (!w || now - w.start >= WINDOW_MS) {
      // Ended windows go when the map grows, so addresses seen once do not pile up.
      if (this.windows.size > 100_000) for (const [a, old] of this.windows) if (now - old.start >= WINDOW_MS) this.windows.delete(a);
      w = { start: now, count: 0 };
      this.windows.set(address, w);
    }
    w.count++;
    return w.count <= this.perMinute ? 0 : Math.max(1, Math.ceil((w.start + WINDOW_MS - now) / 1000));
  }
}
