// What the HTTP fronts ask the dedupe actor, declared once for both ends.
// The actor owns the ring of the last `webhooks.dedupe_size` accepted event
// ids; it is one thread, so every call is atomic for all HTTP threads.

export interface DedupeProtocol {
  /** Whether the id was accepted before. */
  seen(eventId: string): Promise<boolean>;
  /**
   * Check-and-insert for each id in order (a front sends the admissions of one event-loop turn
   * together): true where the id was new and is now remembered. A repeated id within one call
   * is admitted only the first time.
   */
  admitAll(eventIds: string[]): Promise<boolean[]>;
  /** Drops an admitted id again (its event could not be processed). */
  forget(eventId: string): Promise<void>;
}
