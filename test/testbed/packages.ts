// Installs the Debian packages the testbed and the later benchmarks need, touching apt only when something is missing.
import { access, rm, writeFile } from 'node:fs/promises';
import { commandExists, run } from './processes.js';
import { note } from './progress.js';

const requiredPackages = [
  'samba', 'samba-ad-dc', 'samba-ad-provision', 'smbclient', 'ldap-utils', 'winbind', 'krb5-user',
  'rclone', 'litmus', 'wrk', 'hyperfine',
  // The load balancer in front of several proxies (test/support/haproxy.ts).
  'haproxy',
  // getfattr/setfattr: bench/index copies Samba-made NT ACLs onto the pages it seeds.
  'attr',
  // Headless browser and a font for the admin page's end-to-end test and its screenshots.
  'chromium', 'fonts-dejavu-core',
];

// Tools used by the Elasticsearch step; they may come from outside Debian (e.g. a manual Maven), so the
// command is what counts, and the package is only the fallback source.
const requiredCommands = [
  // Debian's default JRE: OpenJDK 17 on Debian 12, 21 on Debian 13 (which has no 17); Elasticsearch 8.19 runs on both.
  { command: 'java', package: 'default-jre-headless' },
  // The testbed's analysis plugin is compiled and packed with the JDK (elasticsearch-analysis-plugin.ts).
  { command: 'javac', package: 'default-jdk-headless' },
  { command: 'jar', package: 'default-jdk-headless' },
  { command: 'mvn', package: 'maven' },
  { command: 'unzip', package: 'unzip' },
  { command: 'openssl', package: 'openssl' },
];

async function uninstalledPackages(names: readonly string[]): Promise<string[]> {
  // dpkg-query exits non-zero when some package is unknown; the lines it prints are still valid.
  const { stdout } = await run('dpkg-query', ['-W', '-f=${Package} ${db:Status-Abbrev}\\n', ...names], {
    allowFailure: true,
  });
  const installed = new Set(
    stdout.split('\n').filter((line) => / ii\s*$/.test(line)).map((line) => line.split(' ')[0]),
  );
  return names.filter((name) => !installed.has(name));
}

async function missingPackages(): Promise<string[]> {
  const missing = await uninstalledPackages(requiredPackages);
  for (const { command, package: pkg } of requiredCommands) {
    if (!(await commandExists(command))) missing.push(pkg);
  }
  return [...new Set(missing)];
}

// Keeps freshly installed Debian services (smbd, nmbd, samba-ad-dc) from starting during the install;
// they would hold the ports the testbed's own DC needs. Only placed if the machine has no policy of its own.
const policyFile = '/usr/sbin/policy-rc.d';

async function withServiceStartsBlocked(work: () => Promise<void>): Promise<void> {
  const ownPolicy = await access(policyFile).then(() => true, () => false);
  if (!ownPolicy) await writeFile(policyFile, '#!/bin/sh\nexit 101\n', { mode: 0o755 });
  try {
    await work();
  } finally {
    if (!ownPolicy) await rm(policyFile, { force: true });
  }
}

export async function ensurePackages(): Promise<void> {
  await install(await missingPackages());
}

/** Installs those of `names` that are missing; for a test that needs a tool a testbed made before it lacks. */
export async function ensureDebianPackages(names: readonly string[]): Promise<void> {
  await install(await uninstalledPackages(names));
}

async function install(missing: readonly string[]): Promise<void> {
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0) {
    throw new Error(`missing packages ${missing.join(' ')}; run the testbed as root so it can install them`);
  }
  note(`installing ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  await withServiceStartsBlocked(async () => {
    await run('apt-get', ['update'], { env });
    await run('apt-get', ['install', '-y', '--no-install-recommends', ...missing], { env, timeoutMs: 30 * 60_000 });
  });
}
