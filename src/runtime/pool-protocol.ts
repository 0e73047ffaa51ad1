// What a worker pool's threads do, declared once for both ends: each task kind with the fields of its task and the
// result it answers. The owner's `WorkerPool.run` returns the result of the kind it sent, and a task module's
// handlers (`servePoolTasks`) must answer each kind with that kind's result, so a task and its result are paired by
// the compiler rather than checked at run time.

/** Each task kind: the fields of its task (besides `type`) and what it answers. */
export type PoolProtocol = Record<string, { task: object; result: unknown }>;

/** A task of kind `K` as it goes to the pool: its kind in `type`, and its fields. */
export type PoolTask<P extends PoolProtocol, K extends keyof P & string = keyof P & string> =
  K extends unknown ? { type: K } & P[K]['task'] : never;

/** What a task of kind `K` answers. */
export type PoolResult<P extends PoolProtocol, K extends keyof P & string> = P[K]['result'];

/** A task module's handler of each kind: it gets that kind's task and answers that kind's result. */
export type PoolHandlers<P extends PoolProtocol> = {
  [K in keyof P & string]: (task: PoolTask<P, K>) => Promise<PoolResult<P, K>> | PoolResult<P, K>;
};

/** The default export of a pool's task module (piscina runs it per task): hands each task to its kind's handler. */
export function servePoolTasks<P extends PoolProtocol>(handlers: PoolHandlers<P>): (task: PoolTask<P>) => Promise<unknown> {
  return async (task) => {
    const handler = handlers[task.type] as ((task: PoolTask<P>) => unknown) | undefined;
    if (handler === undefined) throw new Error(`pool task of unknown kind '${task.type}'`);
    return handler(task);
  };
}
