// What the HTTP fronts ask the dedupe actor, declared once for both ends.
// The actor owns the ring of the last `webhooks.dedupe_size` accepted event
// ids. A single proxy keeps it as shared memory (src/webhooks/dedupe-ring.ts);
// a front asks for it once per incarnation of the actor and then checks and
// inserts ids itself. Proxies that share state (cluster.shared_state:
// elasticsearch) keep it in Elasticsearch (src/webhooks/cluster-event-ids.ts),
// and a front asks the actor per event (a burst of one turn in one call).
import type { SharedEventIdSource } from '../../src/webhooks/cluster-event-ids.js';
import type { DedupeRingSource } from '../../src/webhooks/dedupe-ring.js';

/** The ring of one proxy (src/webhooks/dedupe-ring.ts) and the ids the proxies share (src/webhooks/cluster-event-ids.ts). */
export interface DedupeProtocol extends DedupeRingSource, SharedEventIdSource {}
