// Loaded into every test process with `node --import` (test/run-tests.ts): when the process exits, it appends the
// CPU time it used, with what it started and waited for (the services and commands a test file runs), to the run's
// log directory, a line per test file. run-tests.ts names the files that cost the most CPU: on two cores the
// integration tiers are CPU-bound, so a file's CPU, not its duration, is what it costs the suite.
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { runLogDir } from './log-audit.js';

export const CPU_RECORD_FILE = 'cpu-by-file.txt';

/** utime + stime + cutime + cstime of /proc/self/stat, in ms: this process and its waited-for children. */
function ownAndChildrenCpuMs(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  // Fields after the command's closing parenthesis: state is the 3rd field, utime the 14th (index 11 here).
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = fields.slice(11, 15).reduce((sum, f) => sum + Number(f), 0);
  // Linux reports these in clock ticks of 1/100 s (USER_HZ) on every architecture Node runs on here.
  return ticks * 10;
}

const logDir = runLogDir();
const file = process.argv[1];
// Worker threads of a supervisor a test runs in its own process load this module too (they inherit the flags); the
// process's CPU is counted once, by its main thread.
if (isMainThread && logDir !== undefined && file !== undefined) {
  process.on('exit', () => {
    appendFileSync(join(logDir, CPU_RECORD_FILE), `${ownAndChildrenCpuMs()}\t${file}\n`);
  });
}
