/**
 * The service side of the admin channel (protocol.ts), run by the reconciler actor: a Unix socket in a
 * folder only the service's account may enter. A socket file left behind by a crashed run is replaced; one that
 * still answers belongs to another running service on the same data_dir, and is left alone.
 */
import { chmod, mkdir, unlink } from 'node:fs/promises';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { dirname } from 'node:path';
import { describeSearchError } from '../search/search-failure.js';
import {
  AdminProtocolError,
  encodeLine,
  LineSplitter,
  MAX_REQUEST_LINE,
  parseAdminRequest,
  socketPathProblem,
  type AdminEvent,
  type AdminRequest,
} from './protocol.js';
import type { Logger } from '../common/logger.js';
import { isTerminal, type Job, type JobInfo } from '../indexing/reconciler/jobs.js';
import { JobRequestError, type Reconciler } from '../indexing/reconciler/reconciler.js';

export type AdminTarget = Pick<Reconciler, 'submit' | 'cancel'>;

/** Whether something accepts connections at `path`. */
function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createConnection(path);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
}

async function claim(path: string): Promise<void> {
  const problem = socketPathProblem(path);
  if (problem !== null) throw new Error(problem);
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await chmod(dirname(path), 0o700);
  if (await answers(path)) throw new Error(`another running service already serves ${path}`);
  await unlink(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
}

export class AdminChannel {
  private readonly connections = new Set<Socket>();

  private constructor(
    readonly path: string,
    private readonly server: Server,
  ) {}

  static async listen(path: string, target: AdminTarget, log: Logger): Promise<AdminChannel> {
    await claim(path);
    const server = createServer();
    const channel = new AdminChannel(path, server);
    server.on('connection', (socket) => channel.serve(socket, target, log));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => {
        server.off('error', reject);
        resolve();
      });
    });
    await chmod(path, 0o600);
    log.info({ socket: path }, 'admin channel listening');
    return channel;
  }

  async close(): Promise<void> {
    for (const socket of this.connections) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    await unlink(this.path).catch(() => undefined);
  }

  private serve(socket: Socket, target: AdminTarget, log: Logger): void {
    this.connections.add(socket);
    socket.setEncoding('utf8');
    const lines = new LineSplitter(MAX_REQUEST_LINE);
    let job: Job | undefined;
    let unsubscribe: (() => void) | undefined;

    const send = (event: AdminEvent): void => {
      if (!socket.destroyed) socket.write(encodeLine(event));
    };
    const refuse = (message: string): void => {
      send({ event: 'error', message });
      socket.end();
    };
    const report = (info: JobInfo): void => {
      send({ event: 'job', job: info });
      if (isTerminal(info.state)) socket.end();
    };

    const handle = (request: AdminRequest): void => {
      switch (request.op) {
        case 'run':
          if (job !== undefined) return refuse('one job per connection');
          job = target.submit(request.job, 'admin');
          log.info({ job: job.info.id, kind: job.info.kind, shares: job.info.shares, dryRun: job.info.dryRun }, 'admin channel: job requested');
          unsubscribe = job.subscribe(report);
          report(job.snapshot());
          return;
        case 'cancel':
          if (job === undefined || job.info.kind === 'pass') return refuse('no job of this connection to cancel');
          log.info({ job: job.info.id }, 'admin channel: job cancelled');
          target.cancel(job);
          return;
      }
    };

    socket.on('data', (chunk: string) => {
      try {
        for (const line of lines.push(chunk)) handle(parseAdminRequest(line));
      } catch (error) {
        if (error instanceof AdminProtocolError || error instanceof JobRequestError) refuse(error.message);
        else {
          log.warn({ ...describeSearchError(error) }, 'admin channel: request failed');
          refuse(`the request failed: ${describeSearchError(error).error}`);
        }
      }
    });
    socket.on('error', () => undefined); // a client that went away; 'close' follows
    socket.on('close', () => {
      this.connections.delete(socket);
      unsubscribe?.();
      // A reindex whose caller is gone (Ctrl-C, killed) is stopped; a pass is the service's own business.
      if (job !== undefined && job.info.kind !== 'pass' && !isTerminal(job.info.state)) target.cancel(job);
    });
  }
}
