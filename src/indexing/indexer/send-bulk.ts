/**
 * One batch's `_bulk`, sent until Elasticsearch has answered for every operation: what it pushes back (the whole
 * request answered 429, or single operations answered 429 because its write queue was full) is sent again, only
 * that and in its order, after a back-off (back-off.ts). Once the back-off's bound is used up, operations still
 * pushed back are refused ones, with a reason that says how long they were pushed back; a whole request still
 * pushed back is a batch not taken, as an unreachable Elasticsearch is.
 *
 * Not the client's own retries: @elastic/transport sends a request again on connection errors and 502/503/504 only,
 * never on a 429; the client's bulk helper (client.helpers.bulk) does resend operations answered 429, but after a
 * fixed wait without jitter, not on a whole request answered 429, and from batches and bodies it makes itself, where
 * ours come made by the reconciler and rendered by the indexer.
 */
import { errors, type estypes } from '@elastic/elasticsearch';
import { BackOff } from './back-off.js';
import { countBulkItems, MAX_BULK_REASONS, PUSHED_BACK_STATUS } from './bulk.js';
import { describeSearchError } from '../../search/search-failure.js';
import type { BatchCounts, PushBackCounts } from '../operations.js';

type Sent = ({ written: Omit<BatchCounts, 'notRendered'> } | { failed: string }) & { pushedBack: PushBackCounts };

/** Why the whole request was pushed back, in one line; undefined when it was not. */
function wholePushBack(error: unknown): string | undefined {
  if (!(error instanceof errors.ResponseError && error.statusCode === PUSHED_BACK_STATUS)) return undefined;
  const cause = (error.body as { error?: { type?: string; reason?: string } } | undefined)?.error;
  return cause?.type === undefined ? error.message : `${cause.type} ${cause.reason ?? ''}`;
}

/**
 * Sends `operations` (each the NDJSON lines of one operation, one item of the response) with `post`, and again
 * what is pushed back while `backOff` allows.
 */
export async function sendBulk(
  operations: readonly string[],
  post: (body: string) => Promise<estypes.BulkResponse>,
  backOff = new BackOff(),
): Promise<Sent> {
  const written = { upserted: 0, deleted: 0, rejected: 0, reasons: [] as string[] };
  let resent = 0;
  const pushedBack = () => ({ backOffs: backOff.spent.waits, resent });
  let pending = operations;
  for (;;) {
    let again: { operation: string; reason: string }[];
    let whole = false;
    try {
      const counts = countBulkItems(await post(pending.join('')));
      written.upserted += counts.upserted;
      written.deleted += counts.deleted;
      written.rejected += counts.failed;
      written.reasons.push(...counts.reasons.slice(0, MAX_BULK_REASONS - written.reasons.length));
      again = counts.pushedBack.map(({ item, reason }) => ({ operation: pending[item]!, reason }));
    } catch (error) {
      const reason = wholePushBack(error);
      if (reason === undefined) return { failed: describeSearchError(error).error, pushedBack: pushedBack() };
      again = pending.map((operation) => ({ operation, reason }));
      whole = true;
    }
    if (again.length === 0) return { written, pushedBack: pushedBack() };
    if (!(await backOff.next())) {
      const pushedBackFor = `pushed back by Elasticsearch (${PUSHED_BACK_STATUS}) for ${(backOff.spent.ms / 1000).toFixed(1)} s`;
      if (whole) return { failed: `${pushedBackFor}: ${again[0]!.reason}`, pushedBack: pushedBack() };
      written.rejected += again.length;
      // First: the reason these were refused matters more than older ones.
      written.reasons = [...again.slice(0, MAX_BULK_REASONS).map(({ reason }) => `${pushedBackFor}: ${reason}`), ...written.reasons].slice(0, MAX_BULK_REASONS);
      return { written, pushedBack: pushedBack() };
    }
    resent += again.length;
    pending = again.map(({ operation }) => operation);
  }
}
