/**
 * Applies `work` to the items of `source` (an array too), at most `limit` at once, and yields the results as they
 * finish (not in source order). The source is read only as fast as work finishes, so at most `limit` items are in hand.
 * The first failure, of the source or of `work`, is thrown once the work still running has settled; a consumer
 * that stops early (break, return) also waits for it. Nothing is left running behind the caller's back.
 */
export async function* mapConcurrent<T, R>(
  source: AsyncIterable<T> | Iterable<T>,
  limit: number,
  work: (item: T) => Promise<R>,
): AsyncGenerator<R> {
  const iterator = Symbol.asyncIterator in source ? source[Symbol.asyncIterator]() : source[Symbol.iterator]();
  const running = new Map<number, Promise<{ key: number; result: PromiseSettledResult<R> }>>();
  let nextKey = 0;
  let exhausted = false;
  try {
    for (;;) {
      while (!exhausted && running.size < limit) {
        const next = await iterator.next();
        if (next.done === true) {
          exhausted = true;
          break;
        }
        const key = nextKey++;
        running.set(
          key,
          work(next.value).then(
            (value) => ({ key, result: { status: 'fulfilled', value } }),
            (reason: unknown) => ({ key, result: { status: 'rejected', reason } }),
          ),
        );
      }
      if (running.size === 0) return;
      const { key, result } = await Promise.race(running.values());
      running.delete(key);
      if (result.status === 'rejected') throw result.reason;
      yield result.value;
    }
  } finally {
    await Promise.all(running.values());
    await iterator.return?.();
  }
}
