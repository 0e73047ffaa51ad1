// The service's production dependencies as the package carries them: `npm ci --omit=dev`, trimmed to what runs.
import { execFileSync } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What a dependency ships for its own development, not for running: docs, tests, benchmarks, repo files. */
const NOT_RUN = new Set([
  'doc', 'docs', 'test', 'tests', 'benchmark', 'benchmarks', 'example', 'examples', '.github', '.husky',
  '.npmignore', '.gitattributes', '.travis.yml', 'index.html',
]);

/**
 * Files a dependency ships for its users' compilers and debuggers, not for running: TypeScript declarations and
 * sources, and source maps (the service runs without --enable-source-maps). About half the files of the staged
 * node_modules (2,900 of 5,700 at 1.2.0, 26 MB), and half of what dpkg unpacks and lintian reads.
 */
const NOT_RUN_FILE = /\.([cm]?ts|map)$/;

/** Every file below `dir`, recursively. */
export function filesBelow(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/** The folders of the installed packages: node_modules/<name> and node_modules/@scope/<name>, nested ones too. */
function packageFolders(nodeModules: string): string[] {
  const folders: string[] = [];
  for (const entry of readdirSync(nodeModules, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name === '.bin') continue;
    const path = join(nodeModules, entry.name);
    if (entry.name.startsWith('@')) folders.push(...packageFolders(path));
    else {
      folders.push(path);
      const nested = readdirSync(path).includes('node_modules');
      if (nested) folders.push(...packageFolders(join(path, 'node_modules')));
    }
  }
  return folders;
}

/** True for a glibc ELF object built for x86-64 (e_machine 62); prebuildify names musl builds `*.musl.node`. */
function runsHere(addon: string): boolean {
  const head = readFileSync(addon).subarray(0, 20);
  const elf = head.subarray(0, 4).equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));
  return elf && head.readUInt16LE(18) === 62 && !addon.endsWith('.musl.node');
}

/**
 * `npm ci --omit=dev` in `dir` (which holds package.json and package-lock.json), then trimmed: no docs, tests,
 * repository files, TypeScript or source maps of the dependencies, native addons for glibc on x86-64 only (uWebSockets.js and
 * bufferutil ship builds for macOS, Windows, musl and other CPUs), no command-line links.
 */
export function installDependencies(dir: string): void {
  // Prebuilt addons only: bufferutil's install script would merely pick its prebuild at run time anyway.
  // The cache of the project's own `npm ci` usually has every tarball.
  execFileSync('npm', ['ci', '--omit=dev', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const nodeModules = join(dir, 'node_modules');
  rmSync(join(nodeModules, '.bin'), { recursive: true, force: true });
  for (const folder of packageFolders(nodeModules)) {
    for (const name of readdirSync(folder)) if (NOT_RUN.has(name)) rmSync(join(folder, name), { recursive: true, force: true });
  }
  for (const file of filesBelow(nodeModules)) {
    if (NOT_RUN_FILE.test(file) || (file.endsWith('.node') && !runsHere(file))) rmSync(file);
  }
}

/**
 * Nothing in the package is started through a hashbang like `#!/usr/bin/env node` (the host may have no
 * Node.js, or another one): /usr/bin/fileproxy runs the bundled runtime. So every file loses its executable bit
 * (the runtime is added afterwards), JavaScript its hashbang (it becomes a comment, so line numbers stay), and
 * the dependencies' other scripts (their maintainers' shell scripts, TypeScript sources of command-line tools)
 * go.
 */
export function makeModulesPlain(dir: string): void {
  for (const file of filesBelow(dir)) {
    chmodSync(file, 0o644);
    const text = readFileSync(file);
    if (text.subarray(0, 2).toString() !== '#!') continue;
    if (/\.[cm]?js$/.test(file)) writeFileSync(file, `//${text.subarray(2).toString()}`);
    else rmSync(file);
  }
}
