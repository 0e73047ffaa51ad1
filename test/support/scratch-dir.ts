// A temporary directory for one test process (a test file, a benchmark), removed when that process exits: data
// directories of the services it started, config files, keytabs. A run of the suite starts over a hundred services;
// left behind, their directories filled /tmp by gigabytes over a day's runs, keytabs among them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];

process.once('exit', () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A fresh directory in the system's temp directory, named `<prefix>XXXXXX`, gone when this process exits. */
export function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
