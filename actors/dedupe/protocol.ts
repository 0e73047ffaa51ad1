// What the HTTP fronts ask the dedupe actor, declared once for both ends.
// The actor owns the ring of the last `webhooks.dedupe_size` accepted event
// ids. A single proxy keeps it as shared memory (src/webhooks/dedupe-ring.ts);
// a front asks for it once per incarnation of the actor and then checks and
// inserts ids itself. Proxies that share state (cluster.shared_state:
// elasticsearch) keep it in Elasticsearch (src/webhooks/cluster-event-ids.ts),
// and a front asks the actor per event (a burst of one turn in one call).
import type { Admission } from '../../src/webhooks/cluster-event-ids.js';
import type { DedupeRingHandle } from '../../src/webhooks/dedupe-ring.js';

export interface SharedEventIdProtocol {
  /** Check-and-insert of each event id across the proxies, in order. */
  admitShared(events: { eventId: string; clientId: string }[]): Promise<Admission[]>;
  seenShared(eventId: string): Promise<boolean>;
  forgetShared(eventId: string): Promise<void>;
}

export interface DedupeProtocol extends SharedEventIdProtocol {
  /** The ring's memory and the lock tag of the front `front` (its instance name, e.g. `http-front#2`). */
  sharedRing(front: string): Promise<DedupeRingHandle>;
}
