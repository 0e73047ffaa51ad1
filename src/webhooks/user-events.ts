import { LRUCache } from 'lru-cache';

/** A `service-eventhandler` event kept for one user. */
export interface UserEvent {
  readonly eventId: string;
  readonly clientId: string;
  /** When the event was accepted, milliseconds since the epoch. */
  readonly receivedAt: number;
  /** The event's body as the service sent it: a JSON object, kept as text (see userEventsJson). */
  readonly payloadJson: string;
}

/** An accepted event on its way from the intake to the cache (UserEventsCache.add stamps `receivedAt`). */
export interface NewUserEvent {
  readonly username: string;
  readonly event: Omit<UserEvent, 'receivedAt'>;
}

/** What the intake tells the thread that caches the user events (the webhook-store actor serves it). */
export interface UserEventSink {
  /** Caches accepted `service-eventhandler` events for their users (a front sends those of one event-loop turn together). */
  addUserEvents(events: NewUserEvent[]): Promise<void>;
}

interface UserEventsCacheOptions {
  /** `webhooks.user_events.ttl` in ms; the spec keeps events for 24 hours. */
  readonly ttlMs?: number;
  /** `webhooks.user_events.max_per_user`: older events of a user beyond this are dropped. */
  readonly maxPerUser?: number;
  /** `webhooks.user_events.max_total`: when exceeded, the least recently active users are dropped. */
  readonly maxTotal?: number;
  /** `webhooks.user_events.max_bytes`: the same for the events' size in bytes (see `userEventSize`). */
  readonly maxBytes?: number;
  /** `webhooks.user_events.max_event_size`: a larger event is refused (the intake answers 413). */
  readonly maxEventSize?: number;
  /** Clock in ms since the epoch; injectable for tests. */
  readonly now?: () => number;
}

export const USER_EVENTS_DEFAULTS = {
  ttlMs: 24 * 60 * 60 * 1000,
  maxPerUser: 200,
  maxTotal: 50_000,
  maxBytes: 64 * 1024 * 1024,
  maxEventSize: 64 * 1024,
} as const;

/** What an event costs in the cache: its body as sent, in UTF-8 bytes. */
export function userEventSize(payloadJson: string): number {
  return Buffer.byteLength(payloadJson, 'utf8');
}

/**
 * The answer of GET /edu-api/users/{username}/events. Each payload is spliced in as the text the service sent
 * (it parsed as a JSON object at the intake), so an event is never parsed or serialised again on its way out.
 */
export function userEventsJson(username: string, events: readonly UserEvent[]): string {
  const items = events.map((e) => `{"event_id":${JSON.stringify(e.eventId)},"client_id":${JSON.stringify(e.clientId)},`
    + `"received_at":"${new Date(e.receivedAt).toISOString()}","payload":${e.payloadJson}}`);
  return `{"username":${JSON.stringify(username)},"events":[${items.join(',')}]}`;
}

/** A cached event with its size, so that dropping it need not measure it again. */
interface SizedEvent extends UserEvent {
  readonly size: number;
}

/**
 * One user's events, oldest first. A new holder per change lets the LRU see the new size; the
 * holder's own counts stay those of the moment it was set, which is what its disposal subtracts.
 */
interface UserEvents {
  readonly events: SizedEvent[];
  readonly count: number;
  readonly bytes: number;
}

export class UserEventTooLargeError extends Error {
  override readonly name = 'UserEventTooLargeError';
  constructor(readonly size: number, readonly limit: number) {
    super(`the event is ${size} bytes; webhooks.user_events.max_event_size allows ${limit}`);
  }
}

/**
 * Events per user for 24 hours. Users are entries of an LRU cache whose size is the bytes of
 * their events; the number of events is bounded as well, both by dropping the least recently
 * active users first (a user's own older events go first when only that user is over a bound).
 * Each event also carries its own receive time, so a user's
 * older events expire individually even while newer ones keep the user's entry alive.
 * A user's events are kept oldest first, so adding one and dropping expired or surplus ones
 * only touches the ends of the list (no copy of up to max_per_user events per add).
 * User names are compared case-insensitively (directory logins are), so keys are lower-cased.
 */
export class UserEventsCache {
  private readonly ttlMs: number;
  private readonly maxPerUser: number;
  private readonly maxTotal: number;
  private readonly maxBytes: number;
  private readonly maxEventSize: number;
  private readonly now: () => number;
  private readonly users: LRUCache<string, UserEvents>;
  private eventCount = 0;

  constructor(options: UserEventsCacheOptions = {}) {
    this.ttlMs = positiveInteger('ttlMs', options.ttlMs ?? USER_EVENTS_DEFAULTS.ttlMs);
    this.maxPerUser = positiveInteger('maxPerUser', options.maxPerUser ?? USER_EVENTS_DEFAULTS.maxPerUser);
    this.maxTotal = positiveInteger('maxTotal', options.maxTotal ?? USER_EVENTS_DEFAULTS.maxTotal);
    this.maxBytes = positiveInteger('maxBytes', options.maxBytes ?? USER_EVENTS_DEFAULTS.maxBytes);
    this.maxEventSize = positiveInteger('maxEventSize', options.maxEventSize ?? USER_EVENTS_DEFAULTS.maxEventSize);
    if (this.maxPerUser > this.maxTotal) {
      throw new RangeError(`maxPerUser (${this.maxPerUser}) must not exceed maxTotal (${this.maxTotal})`);
    }
    if (this.maxEventSize > this.maxBytes) {
      throw new RangeError(`maxEventSize (${this.maxEventSize}) must not exceed maxBytes (${this.maxBytes})`);
    }
    const now = options.now ?? Date.now;
    this.now = now;
    this.users = new LRUCache<string, UserEvents>({
      maxSize: this.maxBytes,
      sizeCalculation: (user) => Math.max(1, user.bytes),
      dispose: (user) => { this.eventCount -= user.count; },
      ttl: this.ttlMs,
      perf: { now },
      ttlResolution: 0, // always ask the clock, so an injected clock takes effect at once
    });
  }

  /**
   * Remembers an event for a user; the newest event comes first in `list`. Throws
   * UserEventTooLargeError for an event over max_event_size (nothing is cached then).
   */
  add(username: string, event: Omit<UserEvent, 'receivedAt'>): void {
    const size = userEventSize(event.payloadJson);
    if (size > this.maxEventSize) throw new UserEventTooLargeError(size, this.maxEventSize);
    const key = username.toLowerCase();
    const held = this.users.get(key);
    const events = held?.events ?? [];
    let bytes = (held?.bytes ?? 0) + size;
    events.push({ ...event, receivedAt: this.now(), size });
    bytes -= this.dropExpired(events);
    while (events.length > this.maxPerUser || bytes > this.maxBytes) bytes -= events.shift()!.size;
    this.users.set(key, { events, count: events.length, bytes }); // set again so size and TTL follow the new list
    this.eventCount += events.length;
    while (this.eventCount > this.maxTotal) this.users.pop(); // the least recently active user
  }

  /** The user's unexpired events, newest first (expired ones are dropped by the next `add`). */
  list(username: string): UserEvent[] {
    const events = this.users.get(username.toLowerCase())?.events ?? [];
    const oldest = this.now() - this.ttlMs;
    return events.filter((e) => e.receivedAt > oldest).map(({ size: _size, ...event }) => event).reverse();
  }

  /** Number of events held over all users (expired ones may still count until touched). */
  get totalEvents(): number {
    return this.eventCount;
  }

  /** Bytes of the events held over all users (see `userEventSize`; expired ones as for `totalEvents`). */
  get totalBytes(): number {
    return this.users.calculatedSize;
  }

  /** Events arrive in time order, so the expired ones are at the front. Returns the bytes dropped. */
  private dropExpired(events: SizedEvent[]): number {
    const oldest = this.now() - this.ttlMs;
    let dropped = 0;
    while (events.length > 0 && events[0]!.receivedAt <= oldest) dropped += events.shift()!.size;
    return dropped;
  }
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${value}`);
  return value;
}
