// The Debian package as an operator meets it: built with `npm run package`'s script, installed with apt-get on
// this machine, checked (systemd-analyze verify, check-config, doctor against the testbed), started exactly as
// the installed unit's ExecStart says and as its user, upgraded to a higher version of it (the edited config,
// the secret and the webhook clients survive), and purged. The machine is left as it was found: the package
// purged, the account removed if the test made it, an earlier /etc/edu-fileproxy or /var/lib/edu-fileproxy
// put back. Skipped when not root or when edu-fileproxy is installed already (an installation is never touched).
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parse, stringify } from 'yaml';
import { nodeRuntime } from '../../../packaging/node-runtime.js';
import { buildPackage } from './package-build.js';
import { IndexManager } from '../../../src/indexing/reconciler/index-manager.js';
import { freePort } from '../../support/ports.js';
import { runService, type RunningService } from '../../support/service.js';
import { parseUnit, unitEnvironment } from '../../support/systemd-unit.js';
import { readTestbedEnv, type TestbedEnv } from '../../testbed/env.js';
import { account, DavClient } from '../webdav/dav-client.js';
import { AdminApi } from '../webhooks/api.js';
import { eventually, WikiClient } from '../wiki/wiki-service.js';
import { testSearchClient } from '../../support/es-indices.js';

const PROJECT = fileURLToPath(new URL('../../../../', import.meta.url));
const NAME = 'edu-fileproxy';
const CONFIG_DIR = `/etc/${NAME}`;
const STATE_DIR = `/var/lib/${NAME}`;
const UNIT = `/usr/lib/systemd/system/${NAME}.service`;
const CONFIG = `${CONFIG_DIR}/config.yml`;
const SECRET = `${CONFIG_DIR}/indexer.secret`;
/** Everything the package puts on the machine that purge must take away. */
const INSTALLED_PATHS = [`/usr/lib/${NAME}`, '/usr/bin/fileproxy', UNIT, `/usr/share/${NAME}`, `/usr/share/doc/${NAME}`, CONFIG_DIR, STATE_DIR];

const APT_ENV = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };

function apt(...args: string[]): void {
  execFileSync('apt-get', ['-y', ...args], { env: APT_ENV, stdio: ['ignore', 'ignore', 'pipe'], timeout: 120_000 });
}

/** The installed version, or undefined when the package is not installed (also not as config files only). */
function installedVersion(): string | undefined {
  const query = spawnSync('dpkg-query', ['-W', '-f=${db:Status-Abbrev} ${Version}', NAME], { encoding: 'utf8' });
  return query.status === 0 && query.stdout.startsWith('ii') ? query.stdout.split(' ').at(-1) : undefined;
}

function packageKnown(): boolean {
  const query = spawnSync('dpkg-query', ['-W', '-f=${db:Status-Abbrev}', NAME], { encoding: 'utf8' });
  return query.status === 0 && query.stdout.trim() !== 'un' && query.stdout.trim() !== '';
}

function userExists(name: string): boolean {
  return spawnSync('getent', ['passwd', name]).status === 0;
}

/**
 * The upgrade's package: the first one's payload and maintainer scripts at a higher version, repacked without
 * compression. An upgrade is the work of dpkg and the maintainer scripts, which a rebuilt payload would not change;
 * a second build cost 15 s of CPU (npm ci, staging, xz) where the repack costs 3.
 */
async function repackAtVersion(deb: string, version: string, out: string): Promise<string> {
  const dpkgDeb = (args: string[]) => promisify(execFile)('dpkg-deb', args);
  const tree = join(out, 'tree');
  await dpkgDeb(['--raw-extract', deb, tree]);
  const control = join(tree, 'DEBIAN', 'control');
  writeFileSync(control, readFileSync(control, 'utf8').replace(/^Version: .*$/m, `Version: ${version}`));
  const repacked = join(out, `${NAME}_${version}_amd64.deb`);
  await dpkgDeb(['-Znone', '--build', '--root-owner-group', tree, repacked]);
  rmSync(tree, { recursive: true, force: true });
  return repacked;
}

/** Runs an installed command line as the unit's user, the way systemd would (no login environment). */
function asServiceUser(command: readonly string[], user: string, umask: string): string[] {
  return ['setpriv', `--reuid=${user}`, `--regid=${user}`, '--init-groups', '--', 'sh', '-c', `umask ${umask} && exec "$@"`, 'sh', ...command];
}

function run(command: readonly string[], timeout = 60_000): { code: number | null; out: string } {
  const result = spawnSync(command[0]!, command.slice(1), { encoding: 'utf8', timeout, env: { PATH: '/usr/bin:/bin' } });
  return { code: result.status, out: `${result.stdout}${result.stderr}` };
}

describe('the Debian package, installed, upgraded and purged', { skip: skipReason() }, () => {
  let env: TestbedEnv;
  let work: string;
  let firstDeb: string;
  let upgradeDeb: Promise<string>;
  const upgradeVersion = `${JSON.parse(readFileSync(join(PROJECT, 'package.json'), 'utf8')).version}+upgradetest1`;
  let port: number;
  let service: RunningService | undefined;
  let userBefore: boolean;
  /** What stood at the package's config and state paths before the test, moved aside: original -> backup. */
  const movedAside = new Map<string, string>();
  let unit: Record<string, string[]>;
  let clientId: string;
  let configText: string;

  before(async () => {
    env = await readTestbedEnv();
    work = mkdtempSync(join(tmpdir(), 'fileproxy-package-'));
    userBefore = userExists(NAME);
    for (const path of [CONFIG_DIR, STATE_DIR]) {
      if (!existsSync(path)) continue;
      const backup = join(work, `before-${path.replaceAll('/', '_')}`);
      renameSync(path, backup);
      movedAside.set(path, backup);
    }
    // The service makes the alias on start; the doctor, which runs before it, only looks for it.
    await new IndexManager({ client: testSearchClient(env.es.url) }).ensureIndex();
  });

  after(async () => {
    await service?.stop();
    if (packageKnown()) apt('purge', NAME);
    if (!userBefore && userExists(NAME)) execFileSync('userdel', [NAME]);
    for (const [path, backup] of movedAside) {
      rmSync(path, { recursive: true, force: true });
      renameSync(backup, path);
    }
    rmSync(work, { recursive: true, force: true });
  });

  /** Starts the service with the unit's ExecStartPre and ExecStart, its user, umask and environment. */
  async function startAsUnit(): Promise<RunningService> {
    const user = unit['User']!.at(-1)!;
    const umask = unit['UMask']!.at(-1)!;
    const environment = unitEnvironment(unit);
    const pre = run(asServiceUser(unit['ExecStartPre']!.at(-1)!.split(' '), user, umask));
    assert.equal(pre.code, 0, pre.out);
    const command = asServiceUser(unit['ExecStart']!.at(-1)!.split(' '), user, umask);
    return runService(command, { configFile: CONFIG, port, env: { PATH: '/usr/bin:/bin', ...environment } });
  }

  it('builds with dpkg-deb', async () => {
    // --fast: the release's compression would take half a minute per build (see packaging/build.ts).
    firstDeb = await buildPackage(work, '--fast', '--no-lintian');
    // Meanwhile, while the first one is tried: the upgrade's package. lintian checks the package in lintian.test.ts.
    upgradeDeb = repackAtVersion(firstDeb, upgradeVersion, work);
    upgradeDeb.catch(() => undefined);
  });

  it('installs with apt-get: the runtime, the command, the account, the state dir, a placeholder secret', () => {
    apt('install', firstDeb);
    assert.ok(installedVersion());
    const runtime = run(['/usr/lib/edu-fileproxy/bin/node', '--version']);
    assert.equal(runtime.out.trim(), nodeRuntime(PROJECT).version, 'the pinned runtime');
    assert.equal(run(['fileproxy', '--help']).code, 0);
    assert.ok(userExists(NAME));
    const secret = statSync(SECRET);
    assert.equal(secret.mode & 0o777, 0o600);
    assert.equal(secret.size, 0);
    const uid = Number(execFileSync('id', ['-u', NAME], { encoding: 'utf8' }));
    assert.equal(secret.uid, uid, 'the secret belongs to the service user');
    assert.equal(statSync(STATE_DIR).uid, uid);
    assert.ok(existsSync(`/usr/share/${NAME}/compose.yml`));
  });

  it('has a unit that systemd-analyze verify accepts', () => {
    const verify = run(['systemd-analyze', 'verify', UNIT]);
    assert.equal(verify.code, 0, verify.out);
    unit = parseUnit(readFileSync(UNIT, 'utf8'))['Service']!;
  });

  it('passes check-config and doctor with the testbed\'s config and secret in /etc/edu-fileproxy', async () => {
    port = await freePort();
    const config = parse(readFileSync(env.config, 'utf8')) as Record<string, Record<string, unknown>>;
    const caFile = `${CONFIG_DIR}/ldap-ca.pem`;
    copyFileSync(env.ldap.ca_file, caFile);
    config['http'] = { ...config['http'], port };
    config['storage'] = { ...config['storage'], data_dir: STATE_DIR };
    config['smb'] = { ...config['smb'], indexer_service_account: { user: env.indexer.user, password_file: SECRET } };
    config['ldap'] = { ...config['ldap'], tls: { ...(config['ldap']!['tls'] as object), ca_file: caFile } };
    configText = stringify(config);
    writeFileSync(CONFIG, configText);
    // Into the placeholder, which keeps its owner and mode.
    writeFileSync(SECRET, readFileSync(env.indexer.password_file));
    const user = unit['User']!.at(-1)!;
    const check = run(asServiceUser(['fileproxy', 'check-config'], user, '0077'));
    assert.equal(check.code, 0, check.out);
    const doctor = run(asServiceUser(['fileproxy', 'doctor'], user, '0077'));
    assert.equal(doctor.code, 0, doctor.out);
    assert.match(doctor.out, /^all checks passed$/m);
  });

  it('serves /healthz, a WebDAV GET and a wiki search when started as the unit starts it', async () => {
    service = await startAsUnit();
    assert.equal((await fetch(`${service.url}/healthz`)).status, 200);
    const get = await new DavClient(service, account(env, 'anna')).request('GET', 'Aushang.txt');
    assert.equal(get.status, 200);
    const wiki = new WikiClient(service.url, env);
    await eventually(async () => {
      const result = await wiki.search({ user: 'anna', groups: ['Lehrer', 'Lehrkräfte Mathe'] }, { q: 'Pythagoras' });
      assert.equal(result.total, 1);
    }, 60_000);
    const client = await AdminApi.asAdmin(service.url, env).register('platform-api');
    clientId = client.id;
    assert.equal(await service.stop(), 0);
    service = undefined;
  });

  it('upgrades to a higher version: config, secret and webhook clients stay', async () => {
    const secretBefore = readFileSync(SECRET);
    apt('install', await upgradeDeb);
    assert.equal(installedVersion(), upgradeVersion);
    assert.equal(readFileSync(CONFIG, 'utf8'), configText, 'the edited conffile is kept');
    assert.deepEqual(readFileSync(SECRET), secretBefore);
    assert.equal(statSync(SECRET).mode & 0o777, 0o600);
    service = await startAsUnit();
    const listed = await AdminApi.asAdmin(service.url, env).list('platform-api');
    assert.equal(listed.status, 200);
    assert.ok(listed.body.clients.some((c) => c.id === clientId), 'the client made before the upgrade is listed');
    assert.equal(await service.stop(), 0);
    service = undefined;
  });

  it('removes with apt-get remove keeping config and data, and purges everything but the account', () => {
    apt('remove', NAME);
    assert.equal(installedVersion(), undefined);
    assert.ok(existsSync(CONFIG) && existsSync(SECRET) && existsSync(STATE_DIR), 'remove keeps config and data');
    apt('purge', NAME);
    assert.equal(packageKnown(), false, 'dpkg forgets the package');
    for (const path of INSTALLED_PATHS) assert.equal(existsSync(path), false, `${path} is gone`);
    // Debian policy: a system account stays, since files it owned may remain elsewhere.
    assert.ok(userExists(NAME));
  });
});

function skipReason(): string | false {
  if (process.getuid?.() !== 0) return 'installing a package needs root';
  if (packageKnown()) return `${NAME} is installed on this machine; the test never touches an installation`;
  return false;
}
