import { createHash } from 'node:crypto';
import type { Client } from '@elastic/elasticsearch';
import { answeredWith, ensureIndex } from '../search/shared-state.js';

/** At most this many ids are pruned per call (Elasticsearch's default limit of one search's hits). */
const PRUNE_BATCH = 10_000;
/** The document that says when the ids were last pruned, and by compare-and-set which proxy prunes next. */
const PRUNE_LEASE_ID = 'prune-lease';
/** Event id documents, not the lease. */
const EVENT_IDS = { exists: { field: 'accepted_at' } };

/**
 * The accepted event ids of every proxy that shares state (cluster.shared_state: elasticsearch), kept as one
 * document per id in an Elasticsearch index: the dedupe actor's ring, made common to several machines.
 *
 * Check-and-insert is a `create` (op_type create): Elasticsearch admits a document id once, so of two proxies that
 * accept the same event at the same moment one gets 201 and the other 409 (duplicate), without any lock of ours.
 * A GET by id is real-time (it needs no refresh), so `seen` and a following `create` agree everywhere at once.
 * The creates of one turn of the event loop go as one _bulk; each item answers for itself.
 *
 * The window keeps the ring's meaning: the last `window` accepted ids across all proxies (the ring is global, not
 * per client). `prune` deletes what lies beyond the newest `window` by acceptance time; every proxy calls it every
 * `pruneEveryMs`, and one of them does it then (a lease taken by compare-and-set), so an id stays a duplicate at
 * least as long as the ring would keep it, and about that interval's worth of events longer.
 */
export class ClusterEventIds {
  constructor(
    private readonly client: Client,
    readonly index: string,
    readonly window: number,
    readonly pruneEveryMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Creates the index if missing, with one shard: a create needs one place that decides. Every proxy opens it at start. */
  async open(replicas: number): Promise<void> {
    await ensureIndex(this.client, this.index, {
      settings: { number_of_shards: 1, number_of_replicas: replicas },
      mappings: {
        dynamic: 'strict',
        properties: {
          event_id: { type: 'keyword', index: false, doc_values: false },
          client_id: { type: 'keyword', index: false, doc_values: false },
          accepted_at: { type: 'date', format: 'epoch_millis' },
          pruned_at: { type: 'date', format: 'epoch_millis', index: false },
        },
      },
    });
  }

  /** Check-and-insert of each event, in order (see Admission). */
  async admitAll(events: readonly { eventId: string; clientId: string }[]): Promise<Admission[]> {
    const acceptedAt = this.now();
    const operations = events.flatMap(({ eventId, clientId }) => [
      { create: { _index: this.index, _id: eventDocId(eventId) } },
      { event_id: eventId, client_id: clientId, accepted_at: acceptedAt },
    ]);
    const response = await this.client.bulk({ operations, refresh: false });
    return admissionsOf(response.items.map((item) => item.create ?? {}));
  }

  /** Whether the id was accepted (by any proxy) and is still within the window. */
  seen(eventId: string): Promise<boolean> {
    return this.client.exists({ index: this.index, id: eventDocId(eventId) });
  }

  /** Gives an admitted id up again (its event was not processed after all). */
  async forget(eventId: string): Promise<void> {
    try {
      await this.client.delete({ index: this.index, id: eventDocId(eventId), refresh: false });
    } catch (err) {
      if (!answeredWith(err, 404)) throw err;
    }
  }

  /**
   * Deletes the oldest ids beyond the newest `window` (as far as searches see them, i.e. up to one refresh behind),
   * at most PRUNE_BATCH per call, unless another proxy pruned less than `pruneEveryMs` ago: the proxies take turns
   * through the lease document (compare-and-set), so that each id is deleted once, not once per proxy. Answers how
   * many it deleted. (A search and a _bulk of deletes, not _delete_by_query: that needs the cluster's reindex
   * module, which a minimal node lacks.)
   */
  async prune(): Promise<number> {
    if (!(await this.takePruneLease())) return 0;
    const { count } = await this.client.count({ index: this.index, query: EVENT_IDS });
    if (count <= this.window) return 0;
    const oldest = await this.client.search<unknown>({
      index: this.index, query: EVENT_IDS, size: Math.min(count - this.window, PRUNE_BATCH), sort: [{ accepted_at: 'asc' }],
      _source: false, track_total_hits: false,
    });
    const ids = oldest.hits.hits.map((hit) => hit._id!);
    if (ids.length === 0) return 0;
    const response = await this.client.bulk({ operations: ids.map((_id) => ({ delete: { _index: this.index, _id } })), refresh: false });
    return response.items.filter((item) => item.delete?.status === 200).length;
  }

  /** True if this proxy is the one to prune now: the lease is older than the interval, and this proxy renewed it first. */
  private async takePruneLease(): Promise<boolean> {
    const now = this.now();
    const lease = await this.client.get<{ pruned_at: number }>({ index: this.index, id: PRUNE_LEASE_ID }).catch((err: unknown) => {
      if (answeredWith(err, 404)) return undefined;
      throw err;
    });
    if (lease !== undefined && now - lease._source!.pruned_at < this.pruneEveryMs) return false;
    const document = { pruned_at: now };
    try {
      if (lease === undefined) await this.client.create({ index: this.index, id: PRUNE_LEASE_ID, document, refresh: false });
      else await this.client.index({ index: this.index, id: PRUNE_LEASE_ID, document, refresh: false, if_seq_no: lease._seq_no!, if_primary_term: lease._primary_term! });
      return true;
    } catch (err) {
      if (answeredWith(err, 409)) return false;
      throw err;
    }
  }
}

/** One item of a _bulk answer, as far as admission needs it. */
interface CreateOutcome {
  readonly status?: number;
  readonly error?: { readonly type?: string; readonly reason?: string | null } | undefined;
}

/**
 * What became of one event id: `admitted` (it was new and is now taken), `duplicate` (taken before), or `failed`
 * with the reason (Elasticsearch neither took it nor holds it: its sender gets 503 and retries).
 */
export type Admission = 'admitted' | 'duplicate' | { readonly failed: string };

/** What the intake asks of the thread that keeps the event ids the proxies share (the dedupe actor serves it). */
export interface SharedEventIdSource {
  /** Check-and-insert of each event id across the proxies, in order. */
  admitShared(events: { eventId: string; clientId: string }[]): Promise<Admission[]>;
  seenShared(eventId: string): Promise<boolean>;
  forgetShared(eventId: string): Promise<void>;
}

/**
 * 201 admits, 409 (the id is taken) is a duplicate; anything else (a shard not available, a pushed-back 429) is
 * neither. Each item answers for itself: the others of the batch are taken, and their events go on.
 */
export function admissionsOf(items: readonly CreateOutcome[]): Admission[] {
  return items.map((item) => {
    if (item.status === 201) return 'admitted';
    if (item.status === 409) return 'duplicate';
    return { failed: `status ${item.status}: ${item.error?.type ?? 'no error type'}: ${item.error?.reason ?? ''}` };
  });
}

/**
 * The document id of an event id: its SHA-256 in hex. Elasticsearch takes ids of at most 512 bytes; a sender's id
 * may be longer, and hashing every id keeps one rule for all (the document keeps the id as sent).
 */
export function eventDocId(eventId: string): string {
  return createHash('sha256').update(eventId, 'utf8').digest('hex');
}
