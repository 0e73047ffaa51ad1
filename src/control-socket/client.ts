/**
 * The client side of the admin channel (protocol.ts): what `fileproxy reindex` and the tests use to
 * drive the running service's reconciler.
 */
import { createConnection, type Socket } from 'node:net';
import { encodeLine, LineSplitter, MAX_EVENT_LINE, type AdminEvent, type AdminRequest } from './protocol.js';
import { isTerminal, type JobInfo, type JobRequest } from '../indexing/reconciler/jobs.js';

/** Nothing listens on the socket: the service is not running (or runs with another data_dir). */
class ServiceNotRunningError extends Error {
  override readonly name = 'ServiceNotRunningError';
}

/** The socket exists but this account may not use it. */
class AdminAccessError extends Error {
  override readonly name = 'AdminAccessError';
}

/** The service refused the request (an unknown share, the wiki feature off, ...). */
class AdminRequestRefusedError extends Error {
  override readonly name = 'AdminRequestRefusedError';
}

function connect(path: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(path);
    socket.once('connect', () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ECONNREFUSED') {
        reject(new ServiceNotRunningError(`no running service: nothing answers on ${path}`));
      } else if (error.code === 'EACCES' || error.code === 'EPERM') {
        reject(new AdminAccessError(`permission denied on ${path}: run this as the service's account or as root`));
      } else reject(error);
    });
  });
}

/** Sends one request and calls `onEvent` for each event until the service closes the connection. */
async function exchange(path: string, request: AdminRequest, onEvent: (event: AdminEvent) => void): Promise<Socket> {
  const socket = await connect(path);
  socket.setEncoding('utf8');
  const lines = new LineSplitter(MAX_EVENT_LINE);
  socket.on('data', (chunk: string) => {
    try {
      for (const line of lines.push(chunk)) onEvent(JSON.parse(line) as AdminEvent);
    } catch (error) {
      socket.destroy(new Error(`the service sent something that is not an admin event: ${(error as Error).message}`));
    }
  });
  socket.write(encodeLine(request));
  return socket;
}

export interface RunningJob {
  /** Asks the service to stop the job; `finished` then resolves with state `cancelled`. */
  cancel(): void;
  /** The job's final report. */
  finished: Promise<JobInfo>;
}

/**
 * Starts a job in the running service; `onUpdate` gets its report as it progresses. Resolves once the service
 * has accepted it (or rejects: not running, no access, refused).
 */
export async function startJob(path: string, request: JobRequest, onUpdate: (info: JobInfo) => void = () => undefined): Promise<RunningJob> {
  let accepted!: (job: RunningJob) => void;
  let refused!: (error: Error) => void;
  const acceptance = new Promise<RunningJob>((resolve, reject) => {
    accepted = resolve;
    refused = reject;
  });
  let finish!: (info: JobInfo) => void;
  let fail!: (error: Error) => void;
  const finished = new Promise<JobInfo>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  finished.catch(() => undefined); // the caller may only await acceptance when it fails

  let last: JobInfo | undefined;
  const socket = await exchange(path, { op: 'run', job: request }, (event) => {
    if (event.event === 'error') {
      const error = new AdminRequestRefusedError(event.message);
      refused(error);
      fail(error);
    } else if (event.event === 'job') {
      if (last === undefined) accepted({ cancel: () => socket.write(encodeLine({ op: 'cancel' })), finished });
      last = event.job;
      onUpdate(event.job);
      if (isTerminal(event.job.state)) finish(event.job);
    }
  });
  socket.on('error', (error) => {
    refused(error);
    fail(error);
  });
  socket.on('close', () => {
    const error = new Error('the service closed the admin channel before the job ended (is it stopping?)');
    refused(error);
    if (last === undefined || !isTerminal(last.state)) fail(error);
  });
  return acceptance;
}
