// `npm run package`: builds edu-fileproxy_<version>_amd64.deb with Debian's own tools (dpkg-deb, dpkg-shlibdeps)
// from the compiled tree in dist/, and checks it with lintian. See packaging/README.md for what goes where.
//
//   node dist/packaging/build.js [--version <debian version>] [--out <dir>] [--fast] [--no-lintian]
//
// --version defaults to package.json's.
// --fast compresses with gzip level 1 instead of xz level 6, for the install test: 60 MB instead of 34 MB, in 1.8 s
// of CPU where xz -0 took 8.6 and xz -6 most of a 47 s build, and each read of it (apt, lintian, the test's repack)
// 0.7 s instead of xz -0's 3 (the 150 MB tree on the 2-core AMD host). lintian refuses an uncompressed package and, on
// Debian 12, calls zstd malformed.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { filesBelow, installDependencies, makeModulesPlain } from './dependencies.js';
import { nodeRuntime } from './node-runtime.js';

const PROJECT = fileURLToPath(new URL('../../', import.meta.url));
const SOURCES = join(PROJECT, 'packaging', 'debian');
const NAME = 'edu-fileproxy';
const MAINTAINER = 'edu-fileproxy maintainers <maintainers@users.noreply.a-seed-f57e434e.example>';
/** Where the service lives on the host (the unit and /usr/bin/fileproxy name these paths). */
const LIB = `usr/lib/${NAME}`;

/** Debian tools the build runs, by the package that brings each. */
const TOOLS = { 'dpkg-deb': 'dpkg', 'dpkg-shlibdeps': 'dpkg-dev', 'strip': 'binutils', 'lintian': 'lintian' } as const;

function run(command: string, args: string[], options: { cwd?: string; quiet?: boolean } = {}): string {
  return execFileSync(command, args, {
    cwd: options.cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', options.quiet ? 'pipe' : 'inherit'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    maxBuffer: 64 * 1024 * 1024,
  });
}

function commandExists(command: string): boolean {
  try {
    run('sh', ['-c', `command -v ${command}`], { quiet: true });
    return true;
  } catch {
    return false;
  }
}

/** apt-get installs the tools that are missing, and touches apt only then. */
function ensureTools(): void {
  const missing = Object.entries(TOOLS).filter(([command]) => !commandExists(command)).map(([, pkg]) => pkg);
  if (missing.length === 0) return;
  process.stderr.write(`installing ${missing.join(' ')}\n`);
  run('apt-get', ['update']);
  run('apt-get', ['install', '-y', '--no-install-recommends', ...missing]);
}

interface Options {
  version: string;
  out: string;
  fast: boolean;
  lintian: boolean;
}

const USAGE = 'usage: build.js [--version <debian version>] [--out <dir>] [--fast] [--no-lintian]';

function parseOptions(args: string[]): Options {
  const pkg = JSON.parse(readFileSync(join(PROJECT, 'package.json'), 'utf8')) as { version: string };
  const options: Options = { version: pkg.version, out: PROJECT, fast: false, lintian: true };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--version' && args[i + 1]) options.version = args[++i]!;
    else if (arg === '--out' && args[i + 1]) options.out = args[++i]!;
    else if (arg === '--fast') options.fast = true;
    else if (arg === '--no-lintian') options.lintian = false;
    else throw new Error(`${USAGE}; got ${arg}`);
  }
  return options;
}

/**
 * The service and its production dependencies under usr/lib/edu-fileproxy: dist/ of the service (no tests,
 * benchmarks or source maps), the admin page's static files (read from src/admin-ui/ of the installation),
 * and what `npm ci --omit=dev` brings, trimmed (see dependencies.ts).
 */
function stageService(root: string): void {
  const lib = join(root, LIB);
  mkdirSync(lib, { recursive: true });
  for (const part of ['src', 'actors', 'supervisor', 'threads']) {
    cpSync(join(PROJECT, 'dist', part), join(lib, 'dist', part), { recursive: true, filter: (src) => !src.endsWith('.map') });
  }
  cpSync(join(PROJECT, 'src', 'admin-ui'), join(lib, 'src', 'admin-ui'), { recursive: true });
  for (const file of ['package.json', 'package-lock.json']) cpSync(join(PROJECT, file), join(lib, file));
  installDependencies(lib);
  makeModulesPlain(lib);
}

/** The runtime under usr/lib/edu-fileproxy/bin; its shared-library dependencies for the control file. */
function stageRuntime(root: string): { depends: string; nodeVersion: string } {
  const runtime = nodeRuntime(PROJECT);
  process.stderr.write(`Node.js runtime: ${runtime.version} from ${runtime.binary}\n`);
  const target = join(root, LIB, 'bin', 'node');
  mkdirSync(dirname(target), { recursive: true });
  cpSync(runtime.binary, target);
  chmodSync(target, 0o755);
  // As dh_strip does for executables: the symbols native addons link against are dynamic ones and stay.
  run('strip', ['--remove-section=.comment', '--remove-section=.note', target]);
  // dpkg-shlibdeps wants a debian/control; only the runtime decides the libc version the host needs (the
  // uWebSockets.js build is optional and loaded only where it links).
  const scratch = mkdtempSync(join(tmpdir(), 'fileproxy-shlibdeps-'));
  mkdirSync(join(scratch, 'debian'));
  writeFileSync(join(scratch, 'debian', 'control'), `Source: ${NAME}\n\nPackage: ${NAME}\nArchitecture: amd64\n`);
  const line = run('dpkg-shlibdeps', ['-O', target], { cwd: scratch, quiet: true }).trim();
  rmSync(scratch, { recursive: true, force: true });
  return { depends: line.replace(/^shlibs:Depends=/, ''), nodeVersion: runtime.version };
}

/** The command, the unit, the account, the config, the sidecar and the documents. */
function stageFiles(root: string, version: string, nodeVersion: string): void {
  const place = (from: string, to: string, mode = 0o644) => {
    mkdirSync(dirname(join(root, to)), { recursive: true });
    cpSync(from, join(root, to));
    chmodSync(join(root, to), mode);
  };
  place(join(SOURCES, 'fileproxy'), 'usr/bin/fileproxy', 0o755);
  place(join(PROJECT, 'config', `${NAME}.service`), `usr/lib/systemd/system/${NAME}.service`);
  place(join(SOURCES, 'sysusers.conf'), `usr/lib/sysusers.d/${NAME}.conf`);
  place(join(SOURCES, 'tmpfiles.conf'), `usr/lib/tmpfiles.d/${NAME}.conf`);
  place(join(PROJECT, 'config', 'config.example.yml'), `etc/${NAME}/config.yml`);
  place(join(PROJECT, 'config', 'compose.yml'), `usr/share/${NAME}/compose.yml`);
  place(join(SOURCES, 'lintian-overrides'), `usr/share/lintian/overrides/${NAME}`);
  const man = join(root, 'usr/share/man/man1');
  mkdirSync(man, { recursive: true });
  writeFileSync(join(man, 'fileproxy.1.gz'), gzipSync(readFileSync(join(SOURCES, 'fileproxy.1')), { level: 9 }));
  const doc = join(root, 'usr/share/doc', NAME);
  mkdirSync(doc, { recursive: true });
  writeFileSync(join(doc, 'README.md.gz'), gzipSync(readFileSync(join(PROJECT, 'README.md')), { level: 9 }));
  writeFileSync(join(doc, 'changelog.gz'), gzipSync(changelog(version), { level: 9 }));
  writeFileSync(join(doc, 'copyright'), readFileSync(join(SOURCES, 'copyright'), 'utf8').replaceAll('@NODE_VERSION@', nodeVersion));
}

/** A native package's changelog: one entry for this build. */
function changelog(version: string): string {
  const date = run('date', ['-R'], { quiet: true }).trim();
  return `${NAME} (${version}) unstable; urgency=medium\n\n  * Built from the ${NAME} source tree; see README.md.\n\n -- ${MAINTAINER}  ${date}\n`;
}

/** DEBIAN/: control (with size and dependencies), conffiles, maintainer scripts, md5sums. */
function stageControl(root: string, version: string, depends: string): void {
  const control = join(root, 'DEBIAN');
  const payload = filesBelow(root);
  mkdirSync(control);
  const installedKiB = Math.ceil(payload.reduce((sum, file) => sum + statSync(file).size, 0) / 1024);
  const fields: Record<string, string> = {
    VERSION: version,
    MAINTAINER,
    INSTALLED_SIZE: String(installedKiB),
    DEPENDS: depends,
  };
  const template = readFileSync(join(SOURCES, 'control'), 'utf8');
  writeFileSync(join(control, 'control'), template.replace(/@([A-Z_]+)@/g, (_, key: string) => fields[key] ?? `@${key}@`));
  cpSync(join(SOURCES, 'conffiles'), join(control, 'conffiles'));
  for (const script of ['postinst', 'prerm', 'postrm']) {
    cpSync(join(SOURCES, script), join(control, script));
    chmodSync(join(control, script), 0o755);
  }
  const sums = payload.map((file) => `${createHash('md5').update(readFileSync(file)).digest('hex')}  ${relative(root, file)}\n`);
  writeFileSync(join(control, 'md5sums'), sums.join(''));
}

function build(options: Options): string {
  ensureTools();
  const root = mkdtempSync(join(tmpdir(), 'fileproxy-deb-'));
  try {
    stageService(root);
    const { depends, nodeVersion } = stageRuntime(root);
    stageFiles(root, options.version, nodeVersion);
    // Whatever the umask of the build: directories 755, files 644 unless executable.
    run('chmod', ['-R', 'u+rwX,go+rX,go-w', root]);
    stageControl(root, options.version, depends);
    mkdirSync(options.out, { recursive: true });
    const deb = join(options.out, `${NAME}_${options.version}_amd64.deb`);
    run('dpkg-deb', [...(options.fast ? ['-Zgzip', '-z1'] : ['-Zxz', '-z6']), '--build', '--root-owner-group', root, deb]);
    return deb;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * lintian's findings: errors and warnings in full (errors fail the build; packaging/README.md explains each
 * warning and override), the informational tags counted.
 */
function lint(deb: string): void {
  const report = run('lintian', ['--fail-on', 'none', '--display-info', '--show-overrides', deb], { quiet: true });
  const lines = report.split('\n').filter((line) => /^[EWIO]: /.test(line));
  const infos = new Map<string, number>();
  for (const line of lines) {
    if (line.startsWith('I: ')) {
      const tag = line.split(' ')[2]!;
      infos.set(tag, (infos.get(tag) ?? 0) + 1);
    } else process.stdout.write(`lintian: ${line}\n`);
  }
  for (const [tag, count] of infos) process.stdout.write(`lintian: I: ${tag} (${count}x)\n`);
  if (lines.some((line) => line.startsWith('E: '))) throw new Error(`lintian found errors in ${deb}`);
}

const options = parseOptions(process.argv.slice(2));
const deb = build(options);
process.stdout.write(`built ${deb}\n`);
if (options.lintian) lint(deb);
