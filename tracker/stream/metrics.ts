// The live feed's metrics, registered on the tracker's registry and read at each scrape: streams open
// here, and entries published to the log or lost (the database refused them, or fell too far behind).
import { Gauge, type Registry } from 'prom-client';
import { counterFrom } from '../../shared/metrics.js';
import type { FeedPublisher } from '../feed/publisher.js';
import type { FeedHub } from './hub.js';

export function exposeLiveFeed(registry: Registry, hub: FeedHub, publisher: FeedPublisher): void {
  new Gauge({
    name: 'fleet_streams_open',
    help: 'Live feed streams open on this tracker',
    registers: [registry],
    collect() {
      this.set(hub.size);
    },
  });
  counterFrom(registry, { name: 'fleet_feed_published_total', help: 'Entries (positions, events, command changes) this tracker wrote to the live feed log' }, () => publisher.published);
  counterFrom(registry, { name: 'fleet_feed_lost_total', help: 'Entries this tracker could not write to the live feed log (refused, or dropped while the database was too far behind)' }, () => publisher.failed);
}
