// What the HTTP fronts ask the dedupe actor, declared once for both ends.
// The actor owns the ring of the last `webhooks.dedupe_size` accepted event
// ids as shared memory (src/webhooks/dedupe-ring.ts); a front asks for it once
// per incarnation of the actor and then checks and inserts ids itself.
import type { DedupeRingHandle } from '../webhooks/dedupe-ring.js';

export interface DedupeProtocol {
  /** The ring's memory and the lock tag of the front `front` (its instance name, e.g. `http-front#2`). */
  sharedRing(front: string): Promise<DedupeRingHandle>;
}
