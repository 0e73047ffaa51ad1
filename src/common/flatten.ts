// For sources that yield their items in arrays, a step at a time (the ordered walk, the index's inventory): their
// items one by one, for a consumer that takes items.
/** The items of `batches`, one by one, in order. */
export async function* flatten<T>(batches: AsyncIterable<readonly T[]>): AsyncGenerator<T> {
  for await (const batch of batches) for (const item of batch) yield item;
}
