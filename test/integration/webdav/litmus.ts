// Runs litmus, the WebDAV server test suite, against a collection URL and reads its per-suite summaries.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Account } from './dav-client.js';
import { scratchDir } from '../../support/scratch-dir.js';

export const LITMUS_SUITES = ['basic', 'copymove', 'props', 'locks', 'http'];

export interface LitmusSummary {
  suite: string;
  run: number;
  passed: number;
  failed: number;
}

/** litmus with `-k` (every suite runs even after a failure, so that all summaries can be checked); debug.log goes to a temp dir. */
export async function runLitmus(collectionUrl: string, as: Account, suites = LITMUS_SUITES): Promise<{ stdout: string; summaries: LitmusSummary[] }> {
  const { stdout } = await promisify(execFile)('litmus', ['-k', collectionUrl, as.user, as.password], {
    cwd: scratchDir('litmus-'),
    env: { ...process.env, TESTS: suites.join(' ') },
    maxBuffer: 16 * 1024 * 1024,
    timeout: 300_000,
  }).catch((err: { stdout?: string; message: string }) => ({ stdout: err.stdout ?? err.message }));
  const summaries = [...stdout.matchAll(/summary for `(\w+)': of (\d+) tests run: (\d+) passed, (\d+) failed/g)]
    .map(([, suite, run, passed, failed]) => ({ suite: suite!, run: Number(run), passed: Number(passed), failed: Number(failed) }));
  return { stdout, summaries };
}
