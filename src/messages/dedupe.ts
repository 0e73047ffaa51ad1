// What the HTTP fronts ask the dedupe actor, declared once for both ends.
// The actor owns the ring of the last `webhooks.dedupe_size` accepted event
// ids; it is one thread, so every call is atomic for all HTTP threads.
import type { AcceptedEventIds } from '../webhooks/handle.js';

export type DedupeProtocol = AcceptedEventIds;
