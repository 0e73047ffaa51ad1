/**
 * Who builds the next index version when several proxies share one alias: the holder of a lease in a document that
 * can only be created once (`op_type: create` in `<alias>-lock`, id `rebuild`). The holder renews it while it builds;
 * a lease not renewed for LEASE_MS (its holder died) may be taken over, with the document's sequence number as the
 * guard, so two proxies never both hold it. Two proxies starting with a newer mapping therefore build once: the
 * other finds the lease held, keeps writing through the alias and finds the new index ready afterwards.
 */
import { errors, type Client, type estypes } from '@elastic/elasticsearch';
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';

/** How long a lease lasts without renewal; renewed every third of it. */
const LEASE_MS = 60_000;
const LOCK_ID = 'rebuild';

interface LeaseDocument {
  holder: string;
  target: string;
  expires_at: number;
}

/** Another proxy builds the next index version now. */
export class RebuildBusyError extends Error {
  override readonly name = 'RebuildBusyError';
}

function isConflict(error: unknown): boolean {
  return error instanceof errors.ResponseError && error.meta.statusCode === 409;
}

function isNotFound(error: unknown): boolean {
  return error instanceof errors.ResponseError && error.meta.statusCode === 404;
}

export class RebuildLease {
  /** Set when a renewal found the lease taken: the build must not switch the alias. */
  lost = false;
  private timer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly client: Client,
    private readonly index: string,
    private readonly document: LeaseDocument,
    private guard: { if_seq_no: number; if_primary_term: number },
  ) {
    this.timer = setInterval(() => void this.renew(), LEASE_MS / 3);
    this.timer.unref();
  }

  /**
   * Takes the lease for building `target`, or throws RebuildBusyError naming who holds it. The lock index is made
   * with `replicas` (an index Elasticsearch made on its own would get a replica a single node cannot place).
   */
  static async acquire(client: Client, alias: string, target: string, replicas: number): Promise<RebuildLease> {
    const index = `${alias}-lock`;
    try {
      await client.indices.create({ index, settings: { number_of_shards: 1, number_of_replicas: replicas } });
    } catch (error) {
      if (!(error instanceof errors.ResponseError && error.body?.error?.type === 'resource_already_exists_exception')) throw error;
    }
    const document: LeaseDocument = { holder: `${hostname()}/${process.pid}/${randomUUID()}`, target, expires_at: Date.now() + LEASE_MS };
    let held: estypes.GetResponse<LeaseDocument> | undefined;
    while (held === undefined) {
      try {
        const created = await client.index({ index, id: LOCK_ID, op_type: 'create', document, refresh: false });
        return new RebuildLease(client, index, document, { if_seq_no: created._seq_no!, if_primary_term: created._primary_term! });
      } catch (error) {
        if (!isConflict(error)) throw error;
      }
      try {
        held = await client.get<LeaseDocument>({ index, id: LOCK_ID });
      } catch (error) {
        // Released between the two requests (a build of a few pages is over in moments): the lease is free again.
        if (!isNotFound(error)) throw error;
      }
    }
    const current = held._source!;
    if (current.expires_at > Date.now()) {
      throw new RebuildBusyError(`${current.holder} is building ${current.target} (lease until ${new Date(current.expires_at).toISOString()})`);
    }
    // Its holder stopped renewing: take it over, unless another proxy was quicker.
    try {
      const taken = await client.index({ index, id: LOCK_ID, document, if_seq_no: held._seq_no!, if_primary_term: held._primary_term! });
      return new RebuildLease(client, index, document, { if_seq_no: taken._seq_no!, if_primary_term: taken._primary_term! });
    } catch (error) {
      if (isConflict(error)) throw new RebuildBusyError(`another proxy took over the expired lease of ${current.holder}`);
      throw error;
    }
  }

  /** Ends the lease (when it is still this one's). */
  async release(): Promise<void> {
    clearInterval(this.timer);
    if (this.lost) return;
    try {
      await this.client.delete({ index: this.index, id: LOCK_ID, ...this.guard });
    } catch (error) {
      if (!isConflict(error) && !isNotFound(error)) throw error;
    }
  }

  private async renew(): Promise<void> {
    if (this.lost) return;
    try {
      const renewed = await this.client.index({
        index: this.index, id: LOCK_ID, document: { ...this.document, expires_at: Date.now() + LEASE_MS }, ...this.guard,
      });
      this.guard = { if_seq_no: renewed._seq_no!, if_primary_term: renewed._primary_term! };
    } catch (error) {
      // Taken over (we were too slow) or gone: stop, the other holder's build wins. A failed request is retried next time.
      if (isConflict(error) || isNotFound(error)) this.lost = true;
    }
  }
}
