// `fileproxy reindex`: asks the running service's reconciler, over its admin channel (a Unix socket in
// storage.data_dir, see src/control-socket/protocol.ts), to index shares again or to rebuild the index, and
// shows the progress. The work happens in the service; without a running service this says so and fails.
// Exit codes: 0 done, 1 failed or no service, 2 bad command line, 130 stopped with Ctrl-C.
import { ConfigError, loadConfig } from '../config/index.js';
import { adminSocketPath } from '../control-socket/protocol.js';
import { startJob, type RunningJob } from '../control-socket/client.js';
import { isTerminal, type JobInfo, type JobRequest } from '../indexing/reconciler/jobs.js';
import { parseReindexArgs, REINDEX_USAGE, type ReindexOptions } from './reindex-options.js';
import { progressBar, progressLine, summaryText } from './reindex-progress.js';

/** Plain progress lines (no terminal) come this often. */
const PLAIN_LINE_INTERVAL_MS = 5_000;
/** The bar is redrawn at most this often. */
const BAR_INTERVAL_MS = 200;

/** Shows the job's reports as they come: a bar on a terminal (stderr), plain lines otherwise, nothing for --json. */
function progressDisplay(options: ReindexOptions): { update(info: JobInfo): void; done(): void } {
  if (options.json) return { update: () => undefined, done: () => undefined };
  const terminal = process.stderr.isTTY === true;
  let shown = 0;
  let drawn = false;
  let lastState: string | undefined;
  return {
    update(info) {
      if (isTerminal(info.state)) return;
      const now = Date.now();
      const changed = info.state !== lastState;
      lastState = info.state;
      if (terminal) {
        if (!changed && now - shown < BAR_INTERVAL_MS) return;
        process.stderr.write(`\r\x1b[2K${progressBar(info, process.stderr.columns ?? 100)}`);
        drawn = true;
      } else {
        if (!changed && now - shown < PLAIN_LINE_INTERVAL_MS) return;
        process.stderr.write(`${progressLine(info)}\n`);
      }
      shown = now;
    },
    done() {
      if (drawn) process.stderr.write('\r\x1b[2K');
    },
  };
}

function jobRequest(options: ReindexOptions): JobRequest {
  if (options.rebuild) return { kind: 'rebuild', dryRun: options.dryRun };
  return { kind: 'reindex', ...(options.shares === 'all' ? {} : { shares: options.shares }), dryRun: options.dryRun };
}

/** First Ctrl-C: ask the service to stop the job and wait for its report. Second: leave at once. */
function stopOnInterrupt(job: RunningJob, quiet: boolean): () => void {
  let interrupted = false;
  const onSignal = () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    if (!quiet) process.stderr.write('\nstopping (Ctrl-C again to leave without waiting)...\n');
    job.cancel();
  };
  process.on('SIGINT', onSignal);
  return () => process.off('SIGINT', onSignal);
}

export async function runReindex(args: string[]): Promise<number> {
  const parsed = parseReindexArgs(args);
  if ('help' in parsed) {
    process.stdout.write(`${REINDEX_USAGE}\n`);
    return 0;
  }
  if ('error' in parsed) {
    process.stderr.write(`fileproxy reindex: ${parsed.error}\n\n${REINDEX_USAGE}\n`);
    return 2;
  }
  const { options } = parsed;
  let socket: string;
  try {
    socket = adminSocketPath(loadConfig(options.configFile).config.storage.data_dir);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`fileproxy reindex: ${error.message}\n`);
    return 1;
  }

  const display = progressDisplay(options);
  let job: RunningJob;
  try {
    job = await startJob(socket, jobRequest(options), (info) => display.update(info));
  } catch (error) {
    process.stderr.write(`fileproxy reindex: ${(error as Error).message}\n`);
    return 1;
  }
  const release = stopOnInterrupt(job, options.json);
  let info: JobInfo;
  try {
    info = await job.finished;
  } catch (error) {
    display.done();
    process.stderr.write(`fileproxy reindex: ${(error as Error).message}\n`);
    return 1;
  } finally {
    release();
  }
  display.done();
  process.stdout.write(options.json ? `${JSON.stringify(info, null, 2)}\n` : summaryText(info));
  return info.state === 'cancelled' ? 130 : info.state === 'finished' ? 0 : 1;
}
