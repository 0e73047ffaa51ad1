// Fault drills: an actor's thread made to die from outside, with no code for it in the service. The tests that
// drill run the supervisor in their own process, so they reach the actor's thread through the inspector's NodeWorker
// domain (an in-process session: no port is opened) and run one expression on it:
// - crash: an uncaught error thrown on the thread's event loop, exactly as a bug would throw it; the actor reports
//   it and exits;
// - kill: the thread exits at once without reporting, as after a fatal native error. Only for actors without sockets
//   of uWebSockets.js, which aborts the whole process when a thread ends with its sockets open (crash instead).
import { Session } from 'node:inspector/promises';

/** The inspector reports the process's threads one by one: the list is taken as complete after this long without one. */
const QUIET_MS = 100;
const TIMEOUT_MS = 5_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `promise`, or an error naming `what` after TIMEOUT_MS: a drill that cannot reach its thread fails, and does not hang the test. */
async function within<T>(what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`fault drill: ${what} took more than ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/**
 * Runs `expression` on the running thread of the actor instance `name` (`dedupe`, `http-front#2`) and resolves once
 * that thread is gone (the supervisor may not have seen its exit yet: wait for the restart by its count).
 */
async function evaluateOnActor(name: string, expression: string): Promise<void> {
  const session = new Session();
  session.connect();
  try {
    const threads: { sessionId: string; threadId: number }[] = [];
    let lastReport = Date.now();
    session.on('NodeWorker.attachedToWorker', ({ params }) => {
      lastReport = Date.now();
      // The title is `[worker <threadId>] <name>`, the name the supervisor gave the thread (its instance name).
      const title = /^\[worker (\d+)\] (.*)$/.exec(params.workerInfo.title);
      if (title?.[2] === name) threads.push({ sessionId: params.sessionId, threadId: Number(title[1]) });
    });
    await within('attaching to the threads', session.post('NodeWorker.enable', { waitForDebuggerOnStart: false }));
    const started = Date.now();
    while (threads.length === 0 || Date.now() - lastReport < QUIET_MS) {
      if (Date.now() - started > TIMEOUT_MS) throw new Error(`no thread of actor ${name} in this process`);
      await sleep(10);
    }
    // A spare thread (supervisor.spare_threads) bears the same name; it is started after the incarnation that runs.
    const running = threads.reduce((a, b) => (a.threadId < b.threadId ? a : b));
    const gone = new Promise<void>((resolve) => {
      session.on('NodeWorker.detachedFromWorker', ({ params }) => { if (params.sessionId === running.sessionId) resolve(); });
    });
    const message = JSON.stringify({ id: 1, method: 'Runtime.evaluate', params: { expression } });
    await within(`sending the drill to ${name}`, session.post('NodeWorker.sendMessageToWorker', { sessionId: running.sessionId, message }));
    await within(`the end of thread ${running.threadId} of ${name}`, gone);
  } finally {
    await within('detaching from the threads', session.post('NodeWorker.disable')).catch(() => undefined);
    session.disconnect();
  }
}

/** The actor's thread throws an uncaught error with the message `reason`. */
export function crashActor(name: string, reason = 'fault drill'): Promise<void> {
  return evaluateOnActor(name, `setImmediate(() => { throw new Error(${JSON.stringify(reason)}); })`);
}

/** The actor's thread exits with code 1 without a word to the supervisor. */
export function killActor(name: string): Promise<void> {
  return evaluateOnActor(name, 'setImmediate(() => process.exit(1))');
}
