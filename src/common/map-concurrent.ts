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
  // Finished work queues its result and wakes the loop: a constant cost per item, where racing every promise in hand
  // for each item (Promise.race) costs `limit` reactions each time; a pass takes every page of a share through here.
  const finished: PromiseSettledResult<R>[] = [];
  let running = 0;
  let wake: (() => void) | undefined;
  const settle = (result: PromiseSettledResult<R>): void => {
    running--;
    finished.push(result);
    wake?.();
    wake = undefined;
  };
  const someSettled = () => new Promise<void>((resolve) => (wake = resolve));
  let exhausted = false;
  try {
    for (;;) {
      while (!exhausted && running + finished.length < limit) {
        const next = await iterator.next();
        if (next.done === true) {
          exhausted = true;
          break;
        }
        const started = work(next.value);
        running++;
        started.then(
          (value) => settle({ status: 'fulfilled', value }),
          (reason: unknown) => settle({ status: 'rejected', reason }),
        );
      }
      if (finished.length === 0) {
        if (running === 0) return;
        await someSettled();
      }
      const result = finished.shift()!;
      if (result.status === 'rejected') throw result.reason;
      yield result.value;
    }
  } finally {
    while (running > 0) await someSettled();
    await iterator.return?.();
  }
}
