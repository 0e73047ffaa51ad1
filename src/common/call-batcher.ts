/**
 * Coalesces the calls made during one turn of the event loop into a single call of `flush`
 * with all their arguments. Under load an HTTP thread receives many requests per turn, so a
 * burst costs one cross-thread message to an actor instead of one per request (see
 * bench/webhook). `flush` answers with one result per argument, in order; if it fails, every
 * call of the batch fails with its error.
 */
export class CallBatcher<A, R> {
  private pending: { arg: A; resolve: (result: R) => void; reject: (err: unknown) => void }[] = [];

  constructor(private readonly flush: (args: A[]) => Promise<R[]>) {}

  call(arg: A): Promise<R> {
    // setImmediate runs after the poll phase, i.e. after every request that arrived in this turn.
    if (this.pending.length === 0) setImmediate(() => this.send());
    return new Promise((resolve, reject) => this.pending.push({ arg, resolve, reject }));
  }

  private send(): void {
    const batch = this.pending;
    this.pending = [];
    this.flush(batch.map((call) => call.arg)).then(
      (results) => {
        if (results.length !== batch.length) {
          const err = new Error(`batch of ${batch.length} calls got ${results.length} results`);
          for (const call of batch) call.reject(err);
          return;
        }
        batch.forEach((call, i) => call.resolve(results[i]!));
      },
      (err: unknown) => { for (const call of batch) call.reject(err); },
    );
  }
}
