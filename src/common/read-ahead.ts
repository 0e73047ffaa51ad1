// An async iterable read in advance: for the index side of the diff, whose items come a page (one request to
// Elasticsearch) at a time.
/**
 * Reads `source` up to `ahead` items in advance (async generators queue the calls of next()), so that a slow
 * source overlaps with the consumer's work. Failures of the source surface when the consumer reaches them.
 */
export async function* readAhead<T>(source: AsyncIterable<T>, ahead: number): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  const buffered: Promise<IteratorResult<T>>[] = [];
  let done = false;
  const fill = () => {
    while (!done && buffered.length < ahead) {
      const next = iterator.next();
      next.then((result) => (done ||= result.done === true), () => (done = true));
      buffered.push(next);
    }
  };
  try {
    for (;;) {
      fill();
      const next = buffered.shift();
      if (next === undefined) return;
      const result = await next;
      if (result.done === true) return;
      yield result.value;
    }
  } finally {
    for (const pending of buffered) pending.catch(() => undefined);
    await iterator.return?.();
  }
}
