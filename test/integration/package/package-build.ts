// The Debian package as the tests build and check it: `npm run package`'s script run as a child process, and
// lintian's verdict on what it built. The install test (install.test.ts) builds the package it installs; the lintian
// test (lintian.test.ts) builds its own, so that lintian's minute of CPU runs among the fillers (test/tiers.ts).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BUILD = join(fileURLToPath(new URL('../../../../', import.meta.url)), 'dist', 'packaging', 'build.js');

/** `npm run package`'s script, as a child process; resolves with the .deb. */
export function buildPackage(out: string, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BUILD, '--out', out, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.once('exit', (code) => {
      const built = /^built (\S+\.deb)$/m.exec(output);
      if (code === 0 && built) resolve(built[1]!);
      else reject(new Error(`package build exited with ${code}:\n${output}`));
    });
  });
}

/**
 * lintian's errors about a package (its warnings are explained in packaging/README.md). Without the check
 * binaries/spelling, whose one tag (spelling-error-in-binary) is of severity info, so it can add no error: it reads
 * every string of the 100 MB runtime and took 21 of lintian's 45 s here. `npm run package` runs every check.
 */
export function lintianErrors(deb: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn('lintian', ['--fail-on', 'none', '--dont-check-part', 'binaries/spelling', deb], { stdio: ['ignore', 'pipe', 'ignore'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code === 0) resolve(output.split('\n').filter((line) => line.startsWith('E: ')));
      else reject(new Error(`lintian exited with ${code}`));
    });
  });
}
