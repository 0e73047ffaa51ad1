import { LRUCache } from 'lru-cache';

/** A `service-eventhandler` event kept for one user. */
export interface UserEvent {
  readonly eventId: string;
  readonly clientId: string;
  /** When the event was accepted, milliseconds since the epoch. */
  readonly receivedAt: number;
  readonly payload: Readonly<Record<string, unknown>>;
}

export interface UserEventsCacheOptions {
  /** `webhooks.user_events.ttl` in ms; the spec keeps events for 24 hours. */
  readonly ttlMs?: number;
  /** `webhooks.user_events.max_per_user`: older events of a user beyond this are dropped. */
  readonly maxPerUser?: number;
  /** `webhooks.user_events.max_total`: when exceeded, the least recently active users are dropped. */
  readonly maxTotal?: number;
  /** Clock in ms since the epoch; injectable for tests. */
  readonly now?: () => number;
}

export const USER_EVENTS_DEFAULTS = { ttlMs: 24 * 60 * 60 * 1000, maxPerUser: 200, maxTotal: 50_000 } as const;

/** One user's events, oldest first. A new holder per change lets the LRU see the new size. */
interface UserEvents {
  readonly events: UserEvent[];
}

/**
 * Events per user for 24 hours. Users are entries of an LRU cache whose size is their number
 * of events, so the total is bounded; each event also carries its own receive time, so a user's
 * older events expire individually even while newer ones keep the user's entry alive.
 * A user's events are kept oldest first, so adding one and dropping expired or surplus ones
 * only touches the ends of the list (no copy of up to max_per_user events per add).
 * User names are compared case-insensitively (directory logins are), so keys are lower-cased.
 */
export class UserEventsCache {
  private readonly ttlMs: number;
  private readonly maxPerUser: number;
  private readonly now: () => number;
  private readonly users: LRUCache<string, UserEvents>;

  constructor(options: UserEventsCacheOptions = {}) {
    this.ttlMs = positiveInteger('ttlMs', options.ttlMs ?? USER_EVENTS_DEFAULTS.ttlMs);
    this.maxPerUser = positiveInteger('maxPerUser', options.maxPerUser ?? USER_EVENTS_DEFAULTS.maxPerUser);
    const maxTotal = positiveInteger('maxTotal', options.maxTotal ?? USER_EVENTS_DEFAULTS.maxTotal);
    if (this.maxPerUser > maxTotal) {
      throw new RangeError(`maxPerUser (${this.maxPerUser}) must not exceed maxTotal (${maxTotal})`);
    }
    const now = options.now ?? Date.now;
    this.now = now;
    this.users = new LRUCache<string, UserEvents>({
      maxSize: maxTotal,
      sizeCalculation: (user) => Math.max(1, user.events.length),
      ttl: this.ttlMs,
      perf: { now },
      ttlResolution: 0, // always ask the clock, so an injected clock takes effect at once
    });
  }

  /** Remembers an event for a user; the newest event comes first in `list`. */
  add(username: string, event: Omit<UserEvent, 'receivedAt'>): void {
    const key = username.toLowerCase();
    const events = this.users.get(key)?.events ?? [];
    events.push({ ...event, receivedAt: this.now() });
    this.dropExpired(events);
    while (events.length > this.maxPerUser) events.shift();
    this.users.set(key, { events }); // set again so size and TTL follow the new list
  }

  /** The user's unexpired events, newest first. */
  list(username: string): UserEvent[] {
    const events = this.users.get(username.toLowerCase())?.events ?? [];
    this.dropExpired(events);
    return events.slice().reverse();
  }

  /** Number of events held over all users (expired ones may still count until touched). */
  get totalEvents(): number {
    return this.users.calculatedSize;
  }

  /** Events arrive in time order, so the expired ones are at the front. */
  private dropExpired(events: UserEvent[]): void {
    const oldest = this.now() - this.ttlMs;
    while (events.length > 0 && events[0]!.receivedAt <= oldest) events.shift();
  }
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${value}`);
  return value;
}
