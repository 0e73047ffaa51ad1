/**
 * Access to the testbed for the SMB integration tests: env.json, clients for its accounts, scratch folders
 * and smbcacls. Every logon goes through test/support/smb-logons.ts (NTLM, or Kerberos in the NTLM-off mode).
 */
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { basicInfo } from '../../../src/smb/fscc.js';
import { Access, Disposition, FileInfoClass, SmbClient, SmbError, type SmbShare } from '../../../src/smb/index.js';
import { FileHandle } from '../../../src/smb/open.js';
import { sambaClientAs, testbedShare } from '../../support/smb-logons.js';
import type { NtlmMode } from '../../testbed/ntlm-mode.js';
import { sambaClientLogon } from '../../testbed/samba-clients.js';

export interface TestbedEnv {
  smb: { host: string; port: number; domain: string; shares: { name: string; path: string; encrypt: boolean }[]; ntlm?: NtlmMode };
  samba: { conf: string };
  dc_admin: { user: string; password: string };
  admin: { user: string; password: string; group: string };
  indexer: { user: string; password: string };
  users: Record<string, { password: string; groups: string[]; sid: string }>;
  groups: Record<string, string>;
  config: string;
}

function findEnvFile(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const candidate = join(dir, '.testbed', 'env.json');
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) throw new Error('.testbed/env.json not found: run `node dist/test/testbed/cli.js up` first');
  }
}

export const env: TestbedEnv = JSON.parse(readFileSync(findEnvFile(), 'utf8')) as TestbedEnv;

export function shareFor(client: SmbClient, account: { user: string; password: string }, share = 'schule'): SmbShare {
  return testbedShare(client, env, account, share);
}

export function userAccount(name: string): { user: string; password: string } {
  const u = env.users[name];
  if (!u) throw new Error(`testbed has no user ${name}`);
  return { user: name, password: u.password };
}

export function scratchName(): string {
  return `_smbtest-${randomBytes(4).toString('hex')}`;
}

/** Deletes a folder tree (files first, deepest folders first). */
export async function removeTree(share: SmbShare, root: string): Promise<void> {
  const dirs: string[] = [];
  for await (const e of share.walk(root, { concurrency: 8 })) {
    if (e.isDirectory) dirs.push(e.path);
    else await share.unlink(e.path);
  }
  dirs.sort((a, b) => b.split('/').length - a.split('/').length);
  for (const d of [...dirs, root]) await rmdirSoon(share, d);
}

/**
 * Removes an empty folder. A deleted folder another client holds open (a running service's change watch on a
 * `.wiki/` folder, which it closes as soon as a page there goes, and at once when the server reports the deletion)
 * is removed when that client closes it, a moment later: until then its parent is not empty. Any SMB client that
 * deletes trees must allow for that, as the service's WebDAV DELETE does (src/webdav/tree-ops.ts); how often it
 * happens is measured in test/integration/wiki/live-index.test.ts.
 */
async function rmdirSoon(share: SmbShare, dir: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await share.rmdir(dir);
    } catch (error) {
      if (!(error instanceof SmbError && error.code === 'DIRECTORY_NOT_EMPTY') || attempt >= 20) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** Runs smbcacls as the DC administrator against the share; returns its stdout. */
export function smbcacls(share: string, path: string, args: string[]): string {
  const command = sambaClientAs(env, share, env.dc_admin, [path, '-s', env.samba.conf, ...args]);
  return execFileSync('smbcacls', command.args, { encoding: 'utf8', env: command.env });
}

/** Sets a file's DOS attributes (FileAttributes bits, e.g. READONLY), as `smbclient -c 'setmode f +r'` does. */
export async function setFileAttributes(share: SmbShare, path: string, attributes: number): Promise<void> {
  await share.withTree(async (tree) => {
    const handle = await FileHandle.open(tree, { name: path.replaceAll('/', '\\'), desiredAccess: Access.FILE_WRITE_ATTRIBUTES, disposition: Disposition.OPEN });
    try {
      await handle.setInfo(FileInfoClass.FileBasicInformation, basicInfo({}, attributes));
    } finally {
      await handle.close();
    }
  });
}

/**
 * Runs one command of Samba's own smbclient as `account` (signing on) on `share` and returns the NT status it
 * ended with (`STATUS_ACCESS_DENIED`, ...), `SUCCESS` when it names none: a second opinion beside the project's
 * client. The credentials go in an authentication file (mode 600, in a folder of its own, removed afterwards), so
 * no password shows on a command line. A run that fails without naming a status throws.
 */
export async function smbclientStatus(account: { user: string; password: string }, share: string, command: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'smbclient-'));
  try {
    const auth = join(dir, 'auth');
    await writeFile(auth, `username = ${account.user}\npassword = ${account.password}\ndomain = ${env.smb.domain}\n`, { mode: 0o600 });
    const logon = sambaClientLogon(env.smb.ntlm ?? 'on', share);
    const args = [logon.service, '-p', String(env.smb.port), ...logon.options, '-A', auth, '--client-protection=sign', '-c', command];
    const { ok, output } = await promisify(execFile)('smbclient', args, { env: logon.env }).then(
      ({ stdout, stderr }) => ({ ok: true, output: `${stdout}${stderr}` }),
      (error: { stdout?: string; stderr?: string; message: string }) => ({ ok: false, output: `${error.stdout ?? ''}${error.stderr ?? ''}` || error.message }),
    );
    const status = /NT_(STATUS_\w+)/.exec(output)?.[1];
    if (status) return status;
    if (ok) return 'SUCCESS';
    throw new Error(`smbclient as ${account.user} on ${share}, ${command}: ${output.trim()}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
