// The device side's metrics, registered by ingest on the tracker's registry: connections, devices
// online by protocol, positions received, stored and filtered, frames and implausible positions refused.
import { Counter, Gauge, type Registry } from 'prom-client';
import { counterFrom } from '../../shared/metrics.js';
import { FILTER_REASONS } from '../positions/filters.js';
import { REFUSAL_REASONS } from '../positions/plausible.js';
import { PROTOCOL_NAMES } from '../protocols/registry.js';
import type { PositionBatcher } from './batcher.js';
import type { DeviceConnections } from './connections.js';
import type { IngestStats } from './stats.js';

/** The device side's own counters, read at each scrape (the ingest path only bumps plain fields). */
export function exposeIngest(registry: Registry, ingest: { stats: IngestStats; connections: DeviceConnections; batcher: PositionBatcher }): void {
  const { stats, connections, batcher } = ingest;
  const protocols = PROTOCOL_NAMES;
  new Gauge({
    name: 'fleet_devices_connected',
    help: 'Devices online on this tracker, by protocol (OsmAnd phones: reported within DEVICE_TIMEOUT_SECONDS)',
    labelNames: ['protocol'],
    registers: [registry],
    collect() {
      const counts = connections.byProtocol();
      for (const protocol of new Set([...protocols, ...counts.keys()])) this.set({ protocol }, counts.get(protocol) ?? 0);
    },
  });
  new Gauge({
    name: 'fleet_device_connections',
    help: 'Open device TCP connections, identified or not',
    registers: [registry],
    collect() {
      this.set(stats.connections);
    },
  });
  counterFrom(registry, { name: 'fleet_positions_received_total', help: 'Positions decoded from devices, before storage' }, () => stats.positionsReceived);
  counterFrom(registry, { name: 'fleet_positions_ingested_total', help: 'Positions stored (committed; the device was ACKed after)' }, () => batcher.stored);
  counterFrom(registry, { name: 'fleet_device_frames_decoded_total', help: 'Device frames decoded' }, () => stats.framesDecoded);
  counterFrom(registry, { name: 'fleet_decode_errors_total', help: 'Device frames and OsmAnd reports that could not be decoded, by protocol', label: 'protocol' }, () =>
    protocols.map((p): [string, number] => [p, stats.decodeErrors.get(p) ?? 0]),
  );
  counterFrom(registry, { name: 'fleet_device_garbage_bytes_total', help: 'Bytes skipped between device frames' }, () => stats.garbageBytes);
  counterFrom(registry, { name: 'fleet_unknown_devices_total', help: 'Connections and reports refused for an identity no device has' }, () => stats.unknownIdentities);
  new Counter<'protocol' | 'reason'>({
    name: 'fleet_positions_refused_total',
    help: 'Positions and alarm reports refused as implausible, by protocol and reason (time, latitude, longitude, speed, heading, altitude, satellites, attribute)',
    labelNames: ['protocol', 'reason'],
    registers: [registry],
    collect() {
      this.reset();
      for (const protocol of protocols) for (const reason of REFUSAL_REASONS) this.inc({ protocol, reason }, stats.refused.get(`${protocol} ${reason}`) ?? 0);
    },
  });
  new Counter<'reason' | 'action'>({
    name: 'fleet_positions_filtered_total',
    help: 'Positions caught by a filter (FILTER_*), by reason (zero, future, jump, duplicate) and action: flag (stored flagged) or drop (left out, still ACKed)',
    labelNames: ['reason', 'action'],
    registers: [registry],
    collect() {
      this.reset();
      // A duplicate is never stored flagged: it has only a drop series.
      for (const reason of FILTER_REASONS) for (const action of reason === 'duplicate' ? ['drop'] : ['flag', 'drop']) this.inc({ reason, action }, batcher.filtered.get(`${reason} ${action}`) ?? 0);
    },
  });
  counterFrom(registry, { name: 'fleet_position_writes_refused_total', help: 'Device frames and reports whose positions the database refused even written alone (no ACK)' }, () => batcher.refusedWrites);

  counterFrom(registry, { name: 'fleet_device_connections_refused_total', help: 'Device connections closed by a limit: total or address (DEVICE_MAX_CONNECTIONS*), login_timeout, proxy_header (DEVICE_PROXY_PROTOCOL: none valid in time)', label: 'reason' }, () =>
    ['total', 'address', 'login_timeout', 'proxy_header'].map((r): [string, number] => [r, stats.refusedConnections.get(r) ?? 0]),
  );
  counterFrom(registry, { name: 'fleet_device_takeovers_total', help: 'Second connections of a connected device (DEVICE_TAKEOVER), by the one that kept it: newer or older', label: 'winner' }, () =>
    ['newer', 'older'].map((w): [string, number] => [w, stats.takeovers.get(w) ?? 0]),
  );
  counterFrom(registry, { name: 'fleet_osmand_reports_limited_total', help: 'OsmAnd reports answered 429 (OSMAND_REPORTS_PER_MINUTE_PER_ADDRESS)' }, () => stats.osmandLimited);
  counterFrom(registry, { name: 'fleet_bad_checksums_total', help: 'Device frames with a wrong checksum (stored unless CRC_STRICT)' }, () => {
    let n = 0;
    for (const count of stats.badChecksums.values()) n += count;
    return n;
  });
}
