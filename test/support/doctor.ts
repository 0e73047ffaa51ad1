// Runs `fileproxy doctor` as an operator would and reads its lines: "ok   <check>: ...", "FAIL <check>: ..." and
// under each failure "     fix: ...".
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { FILEPROXY_CLI } from './cli-path.js';


export function doctor(configFile: string): { code: number | null; lines: string[] } {
  const run = spawnSync(process.execPath, [FILEPROXY_CLI, 'doctor', '--config', configFile], { encoding: 'utf8', timeout: 60_000 });
  return { code: run.status, lines: run.stdout.split('\n') };
}

/** The FAIL line of `check`, asserting that it is there and comes with a fix. */
export function failLine(lines: string[], check: string): string {
  const i = lines.findIndex((l) => l.startsWith(`FAIL ${check}`));
  assert.ok(i >= 0, `expected a FAIL line for ${check} in:\n${lines.join('\n')}`);
  assert.match(lines[i + 1] ?? '', /^ {5}fix: \S/, `the failure of ${check} comes with a fix`);
  return lines[i]!;
}
