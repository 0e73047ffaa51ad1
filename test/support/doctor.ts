// Runs `fileproxy doctor` as an operator would and reads its lines: "ok   <check>: ...", "FAIL <check>: ..." and
// under each failure "     fix: ...".
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { FILEPROXY_CLI } from './cli-path.js';

/**
 * Asynchronous on purpose: a synchronous child blocks this process's event loop for the seconds doctor takes, so a
 * kept-alive connection to a running service idles past the service's keep-alive timeout without this side noticing
 * the close, and the next fetch on it fails ("fetch failed", seen in CI after a 5 s doctor run).
 */
export function doctor(configFile: string): Promise<{ code: number | null; lines: string[] }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [FILEPROXY_CLI, 'doctor', '--config', configFile], { encoding: 'utf8', timeout: 60_000 }, (error, stdout) => {
      // A failing check exits 1, which execFile reports as an error with that code; only a run that did not end by
      // itself (a signal, the timeout, a spawn failure) is one.
      if (error !== null && typeof error.code !== 'number') reject(error);
      else resolve({ code: error === null ? 0 : (error.code as number), lines: stdout.split('\n') });
    });
  });
}

/** The FAIL line of `check`, asserting that it is there and comes with a fix. */
export function failLine(lines: string[], check: string): string {
  const i = lines.findIndex((l) => l.startsWith(`FAIL ${check}`));
  assert.ok(i >= 0, `expected a FAIL line for ${check} in:\n${lines.join('\n')}`);
  assert.match(lines[i + 1] ?? '', /^ {5}fix: \S/, `the failure of ${check} comes with a fix`);
  return lines[i]!;
}
